/**
 * The version rule of resolve and of every call: a server of version S serves a client asking for version C when
 * the majors are equal and S.minor >= C.minor (minor versions only add). Anything else is incompatible.
 */
export function parseVersion(v: string): { major: number; minor: number } | undefined {
  const m = /^(\d+)\.(\d+)$/.exec(v);
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
}

export function versionCompatible(server: string, requested: string): boolean {
  const s = parseVersion(server);
  const c = parseVersion(requested);
  return !!s && !!c && s.major === c.major && s.minor >= c.minor;
}
