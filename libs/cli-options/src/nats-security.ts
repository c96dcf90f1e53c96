/**
 * How a process proves who it is to NATS, and how it checks the server: from the command line, else from the
 * environment, one documented name each. Every command spreads NATS_SECURITY_OPTIONS into its parseArgs options
 * and appends NATS_SECURITY_HELP to its --help; the middleware turns the result into nats.js authenticators.
 *
 *   const security = natsSecurity(values, process.env);
 *   if (typeof security === 'string') return { kind: 'error', message: security };
 *
 * At most one way to authenticate: a user with a password (or a file holding it, as containers get their secrets),
 * a token, an nkey seed file, or a .creds file (a user JWT and its seed). The command line wins over the environment as a whole, so a token in the environment never
 * mixes with a --nats-creds on the command line.
 */
export interface NatsSecurity {
  user?: string;
  password?: string;
  /** A file holding the password (its first line), read when connecting: a secret mounted into a container. */
  passwordFile?: string;
  token?: string;
  /** A file holding an nkey user seed (SU...). */
  nkeySeedFile?: string;
  /** A .creds file (user JWT and nkey seed, as `nsc` writes it). */
  credsFile?: string;
  /** TLS to the server: set when any of its files is given, or when a server URL is tls://. */
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
}

/** Each setting's flag and environment variable. */
const SETTINGS = [
  { key: 'user', flag: 'nats-user', env: 'NATS_USER' },
  { key: 'password', flag: 'nats-password', env: 'NATS_PASSWORD' },
  { key: 'passwordFile', flag: 'nats-password-file', env: 'NATS_PASSWORD_FILE' },
  { key: 'token', flag: 'nats-token', env: 'NATS_TOKEN' },
  { key: 'nkeySeedFile', flag: 'nats-nkey', env: 'NATS_NKEY' },
  { key: 'credsFile', flag: 'nats-creds', env: 'NATS_CREDS' },
  { key: 'caFile', flag: 'nats-ca', env: 'NATS_CA' },
  { key: 'certFile', flag: 'nats-cert', env: 'NATS_CERT' },
  { key: 'keyFile', flag: 'nats-key', env: 'NATS_KEY' },
] as const;

type Flag = (typeof SETTINGS)[number]['flag'];
type Key = (typeof SETTINGS)[number]['key'];
const AUTH_KEYS: readonly Key[] = ['user', 'password', 'passwordFile', 'token', 'nkeySeedFile', 'credsFile'];
const TLS_KEYS: readonly Key[] = ['caFile', 'certFile', 'keyFile'];

/** Spread into a command's parseArgs options. */
export const NATS_SECURITY_OPTIONS = Object.fromEntries(SETTINGS.map((s) => [s.flag, { type: 'string' as const }])) as Record<Flag, { type: 'string' }>;

/** Appended to a command's --help, under its options. */
export const NATS_SECURITY_HELP = `NATS credentials and TLS (each flag, else its environment variable; at most one way to authenticate):
  --nats-user <name>      user name, with --nats-password                       ($NATS_USER)
  --nats-password <pw>    password (prefer the environment: flags show in ps)  ($NATS_PASSWORD)
  --nats-password-file <file>
                          file holding the password, instead of it              ($NATS_PASSWORD_FILE)
  --nats-token <token>    authentication token                                  ($NATS_TOKEN)
  --nats-nkey <file>      file holding an nkey user seed (SU...)                ($NATS_NKEY)
  --nats-creds <file>     .creds file: a user JWT and its seed                  ($NATS_CREDS)
  --nats-ca <file>        CA certificate(s) to check the server with (PEM)     ($NATS_CA)
  --nats-cert <file>      client certificate (PEM), with --nats-key             ($NATS_CERT)
  --nats-key <file>       client private key (PEM)                              ($NATS_KEY)
`;

/** The environment variables read, for supervisors that pass them on to their children. */
export const NATS_SECURITY_ENV: readonly string[] = SETTINGS.map((s) => s.env);

/**
 * The security settings of a command line (`values` from parseArgs with NATS_SECURITY_OPTIONS; {} to read the
 * environment alone). Returns the settings, or the one-line error to show.
 */
export function natsSecurity(values: Partial<Record<Flag, string | undefined>>, env: NodeJS.ProcessEnv): NatsSecurity | string {
  const fromFlags = pick(SETTINGS.map((s) => [s.key, values[s.flag]]));
  const fromEnv = pick(SETTINGS.map((s) => [s.key, env[s.env]]));
  // a group given on the command line replaces the environment's group as a whole
  const group = (keys: readonly Key[]) => {
    const source = keys.some((k) => fromFlags[k] !== undefined) ? fromFlags : fromEnv;
    return Object.fromEntries(keys.filter((k) => source[k] !== undefined).map((k) => [k, source[k]])) as Partial<Record<Key, string>>;
  };
  const auth = group(AUTH_KEYS);
  const tls = group(TLS_KEYS);
  const password = auth.password !== undefined || auth.passwordFile !== undefined;
  const ways = [auth.user !== undefined || password, auth.token !== undefined, auth.nkeySeedFile !== undefined, auth.credsFile !== undefined].filter(Boolean).length;
  if (ways > 1) return 'give at most one of --nats-user/--nats-password, --nats-token, --nats-nkey and --nats-creds (or their environment variables)';
  if (auth.password !== undefined && auth.passwordFile !== undefined) return 'give --nats-password or --nats-password-file, not both ($NATS_PASSWORD, $NATS_PASSWORD_FILE)';
  if ((auth.user === undefined) === password) return '--nats-user and --nats-password (or --nats-password-file) go together ($NATS_USER and $NATS_PASSWORD)';
  if ((tls.certFile === undefined) !== (tls.keyFile === undefined)) return '--nats-cert and --nats-key go together ($NATS_CERT and $NATS_KEY)';
  const out: NatsSecurity = {};
  if (auth.user !== undefined) Object.assign(out, { user: auth.user }, auth.passwordFile !== undefined ? { passwordFile: auth.passwordFile } : { password: auth.password });
  if (auth.token !== undefined) out.token = auth.token;
  if (auth.nkeySeedFile !== undefined) out.nkeySeedFile = auth.nkeySeedFile;
  if (auth.credsFile !== undefined) out.credsFile = auth.credsFile;
  if (Object.keys(tls).length > 0) out.tls = { caFile: tls.caFile, certFile: tls.certFile, keyFile: tls.keyFile };
  return out;
}

function pick(entries: (readonly [Key, string | undefined])[]): Partial<Record<Key, string>> {
  // an empty value counts as not given, as with NATS_URL
  return Object.fromEntries(entries.filter(([, v]) => v !== undefined && v !== ''));
}
