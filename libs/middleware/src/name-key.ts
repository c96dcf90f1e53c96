/**
 * KV keys of the name registry: one key per (name, interface type). KV keys allow [-/=.\w]; names like
 * "esp/subsystems/processing/dispatcher" keep their slashes, types like "processing::session_factory" get their
 * colons escaped as =XX, and the single "." separates the two parts so a key maps back to exactly one pair.
 */
function escapePart(s: string): string {
  return Array.from(new TextEncoder().encode(s), (b) => {
    const c = String.fromCharCode(b);
    return /[A-Za-z0-9_/-]/.test(c) && b < 0x80 ? c : `=${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');
}

function unescapePart(s: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '=') {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(s.charCodeAt(i));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

export function bindingKey(name: string, interfaceType: string): string {
  return `${escapePart(name)}.${escapePart(interfaceType)}`;
}

export function parseBindingKey(key: string): { name: string; interfaceType: string } | undefined {
  const dot = key.indexOf('.');
  if (dot <= 0 || dot !== key.lastIndexOf('.')) return undefined;
  return { name: unescapePart(key.slice(0, dot)), interfaceType: unescapePart(key.slice(dot + 1)) };
}
