/**
 * The command line of `npm run crawl`: a crawl (start URLs) or an operator command, parsed into what main.ts does.
 * Pure: arguments and environment in, a plan or the help or a usage error out.
 */
import { NATS_SECURITY_HELP, NATS_SECURITY_OPTIONS, natsSecurity, type NatsSecurity, natsServers, tryParseArgs, type CliResult, STACK_HELP, STACK_OPTIONS, waitForNatsMs } from '@esp/cli-options';
import { CRAWL_DEFAULTS, type CrawlCommand, type CrawlSpec, type UriRulesSpec } from '@esp/interfaces';

/** Seconds without any fetch outcome, while pages wait, before a waiting crawl command gives up (--give-up-after). */
export const DEFAULT_GIVE_UP_S = 300;

export const HELP = `Usage: npm run crawl -- --collection <name> [options] <start-url>...
       npm run crawl -- <command> [arguments] --collection <name> [options]

Crawls web sites into a collection with the crawl roles \`npm start\` runs (the multinode scheduler, node
schedulers, duplicate servers): creates or updates the crawl of the collection, makes the collection known to
the feeding chain, shows progress on stderr while it runs and, once every node is idle, prints a summary on
stdout and exits. Crawling again with other settings updates the crawl (its start URLs are crawled again).

Crawl options:
  -c, --collection <name>   the collection the pages are indexed in (required)
      --include <rule>      crawl only URIs matching a rule (repeatable); a rule is prefix:<text>,
                            suffix:<text>, exact:<uri> or regexp:<re>; a bare value is a prefix
                            (default: the start URLs' sites, each scheme://host[:port]/)
      --exclude <rule>      never crawl URIs matching the rule (repeatable; default: none)
      --delay <s>           seconds between two requests to one site (default: ${CRAWL_DEFAULTS.delay_s})
      --max-depth <n>       links followed from a start URL at most; "none" for no bound (default: ${CRAWL_DEFAULTS.max_depth})
      --max-pages <n>       documents per site at most (max_doc); 0 for no bound (default: ${CRAWL_DEFAULTS.max_doc})
      --refresh <min>       start a new crawl round this many minutes after the previous one began: known
                            pages fetched again with conditional GETs (default: ${CRAWL_DEFAULTS.refresh_min}, no rounds; the
                            command still exits when the first crawl is done)
      --no-robots           do not obey robots.txt (default: obey it)
      --no-sitemaps         do not read the sites' sitemaps (default: read them)
      --no-wait             return as soon as the crawl is set, without waiting for it to finish
      --timeout <s>         give up waiting after this long (exit 3; the crawl goes on) (default: none)
      --give-up-after <s>   give up when nothing was fetched, failed or excluded for this long while pages wait
                            (a site that cannot be reached, a robots.txt that cannot be read): the crawl is
                            suspended, and the command exits 4 with the reasons (default: ${DEFAULT_GIVE_UP_S}; 0: never)

Commands (each with --collection):
  status                    the crawl's state, counters, nodes and sites (--collection optional: all)
  suspend | resume          stop fetching / go on (CMD_ADM_CONF_SUSPEND / CMD_ADM_CONF_RESUME)
  refresh                   a crawl round: every known page asked for again if changed (CMD_ADM_CONF_REFRESH)
  delete-site <site>        remove what the site fed from the index (CMD_UM_DELETE_SITE)
  delete-uris <uri>...      remove these documents from the index (CMD_UM_DELETE_URIS)
  quarantine <site>         stop crawling the site for --seconds (default 3600), its queue dropped unless
                            --requeue (CMD_UM_QUARANTINE_SITE[_REQUEUE])
  preempt <site>            stop crawling the site now, its queue dropped unless --requeue (CMD_ADM_PREEMPT_SITE)
  reprocess <site>          fetch and feed again what the site fed, under --prefix <uri> (CMD_UM_REPROCESS_SITE)
  feeding-suspend           crawl without feeding; --resume feeds again (CMD_ADM_CONF_FEEDING_SUSPEND)
  urgent <uri>...           crawl these URIs before anything queued (CMD_UM_URI_URG)
  delete                    delete the crawl of the collection, its configuration file and the documents it fed
                            (CMD_ADM_CONF_REMOVE)
A <site> is host[:port] or a URL of the site.

Common options:
      --json                print one JSON object on stdout instead of text
      --quiet               no progress on stderr
      --cluster <name>      crawl cluster (default: default)
      --mns <id>            the multinode scheduler's id (default: main)
  -h, --help                show this help

While it waits, the progress line says why a site is held back (e.g. robots.txt unreachable, and when it is tried
again) and the reason of the last fetch error of each site.

Exit status: 0 done, 1 failed (the crawl roles do not answer, an invalid crawl, an unknown collection),
2 usage error, 3 --timeout ran out before the crawl was done, 4 nothing could be fetched (the crawl ended with
fetch errors only, or --give-up-after ran out).

${STACK_HELP}
${NATS_SECURITY_HELP}`;

export const COMMANDS = ['status', 'suspend', 'resume', 'refresh', 'delete-site', 'delete-uris', 'quarantine', 'preempt', 'reprocess', 'feeding-suspend', 'urgent', 'delete'] as const;

export type CommandName = (typeof COMMANDS)[number];

interface Common {
  nats: string[];
  security: NatsSecurity;
  /** How long to wait for the first connection to NATS (ms). */
  waitForNatsMs: number;
  cluster: string;
  mns: string;
  json: boolean;
  quiet: boolean;
}

export type Plan =
  | ({ action: 'crawl'; spec: CrawlSpec; wait: boolean; timeoutMs: number | undefined; giveUpAfterMs: number | undefined } & Common)
  | ({ action: 'status'; collection: string } & Common)
  | ({ action: 'command'; collection: string; command: CrawlCommand } & Common);

export type Cli = CliResult<{ plan: Plan }>;

/** prefix:/suffix:/exact:/regexp: rules into the rules of a DomainSpecification section. */
export function parseRules(raw: string[], option: string): UriRulesSpec | string {
  const rules: UriRulesSpec = { prefix: [], suffix: [], exact: [], regexp: [] };
  for (const r of raw) {
    const m = /^(prefix|suffix|exact|regexp):(.*)$/s.exec(r);
    const [kind, text] = m ? [m[1] as keyof UriRulesSpec, m[2] ?? ''] : (['prefix', r] as const);
    if (text === '') return `--${option} "${r}": the rule is empty`;
    if (kind === 'regexp') {
      try {
        new RegExp(text);
      } catch (err) {
        return `--${option} "${r}": ${(err as Error).message}`;
      }
    }
    rules[kind].push(text);
  }
  return rules;
}

const isHttpUrl = (s: string): boolean => {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
};

function numberOption(name: string, raw: string | undefined, fallback: number, min: number, max: number, integer: boolean): number | string {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    return `--${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got "${raw}"`;
  }
  return n;
}

export function parseCli(argv: string[], env: NodeJS.ProcessEnv): Cli {
  const parsed = tryParseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      collection: { type: 'string', short: 'c' },
      include: { type: 'string', multiple: true },
      exclude: { type: 'string', multiple: true },
      delay: { type: 'string' },
      'max-depth': { type: 'string' },
      'max-pages': { type: 'string' },
      refresh: { type: 'string' },
      'no-robots': { type: 'boolean' },
      'no-sitemaps': { type: 'boolean' },
      'no-wait': { type: 'boolean' },
      timeout: { type: 'string' },
      seconds: { type: 'string' },
      requeue: { type: 'boolean' },
      prefix: { type: 'string' },
      resume: { type: 'boolean' },
      json: { type: 'boolean' },
      quiet: { type: 'boolean' },
      'give-up-after': { type: 'string' },
      ...STACK_OPTIONS,
      ...NATS_SECURITY_OPTIONS,
      cluster: { type: 'string' },
      mns: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if ('error' in parsed) return { kind: 'error', message: parsed.error };
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help', text: HELP };
  const security = natsSecurity(values, env);
  if (typeof security === 'string') return { kind: 'error', message: security };
  const waitMs = waitForNatsMs(values['wait-for-nats']);
  if (typeof waitMs === 'string') return { kind: 'error', message: waitMs };
  // the home's stack.json is in env already (NATS_URL, cli-stack.ts)
  const common: Common = { nats: natsServers(values.nats, env), security, waitForNatsMs: waitMs, cluster: values.cluster ?? 'default', mns: values.mns ?? 'main', json: values.json ?? false, quiet: values.quiet ?? false };
  const collection = values.collection;
  const [first, ...rest] = positionals;
  if (first === undefined) return { kind: 'error', message: 'give start URLs to crawl (with --collection), or a command: ' + COMMANDS.join(', ') };

  if ((COMMANDS as readonly string[]).includes(first)) {
    const name = first as CommandName;
    if (name === 'status') {
      if (rest.length) return { kind: 'error', message: `status takes no arguments, got "${rest.join(' ')}"` };
      return { kind: 'run', plan: { action: 'status', collection: collection ?? '', ...common } };
    }
    if (!collection) return { kind: 'error', message: `${name} needs --collection <name>` };
    const command = commandOf(name, rest, values);
    if (typeof command === 'string') return { kind: 'error', message: command };
    return { kind: 'run', plan: { action: 'command', collection, command, ...common } };
  }

  const bad = positionals.find((p) => !isHttpUrl(p));
  if (bad !== undefined) return { kind: 'error', message: `"${bad}" is neither a command (${COMMANDS.join(', ')}) nor an http(s) URL to crawl` };
  if (!collection) return { kind: 'error', message: 'say which collection the pages go to: --collection <name>' };
  const include = values.include ? parseRules(values.include, 'include') : null;
  if (typeof include === 'string') return { kind: 'error', message: include };
  const exclude = values.exclude ? parseRules(values.exclude, 'exclude') : null;
  if (typeof exclude === 'string') return { kind: 'error', message: exclude };
  const delay = numberOption('delay', values.delay, CRAWL_DEFAULTS.delay_s, 0, 3600, false);
  if (typeof delay === 'string') return { kind: 'error', message: delay };
  const maxDepth = values['max-depth'] === 'none' ? null : numberOption('max-depth', values['max-depth'], CRAWL_DEFAULTS.max_depth, 0, 1000, true);
  if (typeof maxDepth === 'string') return { kind: 'error', message: `${maxDepth} (or "none")` };
  const maxPages = numberOption('max-pages', values['max-pages'], CRAWL_DEFAULTS.max_doc, 0, 1e9, true);
  if (typeof maxPages === 'string') return { kind: 'error', message: maxPages };
  const refresh = numberOption('refresh', values.refresh, CRAWL_DEFAULTS.refresh_min, 0, 525_600, false);
  if (typeof refresh === 'string') return { kind: 'error', message: refresh };
  const timeout = values.timeout === undefined ? undefined : numberOption('timeout', values.timeout, 0, 1, 30 * 86400, false);
  if (typeof timeout === 'string') return { kind: 'error', message: timeout };
  const giveUp = numberOption('give-up-after', values['give-up-after'], DEFAULT_GIVE_UP_S, 0, 30 * 86400, false);
  if (typeof giveUp === 'string') return { kind: 'error', message: giveUp };
  const spec: CrawlSpec = {
    collection,
    start_uris: positionals,
    include,
    exclude,
    delay_s: delay,
    max_depth: maxDepth,
    max_doc: maxPages,
    robots: !values['no-robots'],
    sitemaps: !values['no-sitemaps'],
    refresh_min: refresh,
  };
  return { kind: 'run', plan: { action: 'crawl', spec, wait: !values['no-wait'], timeoutMs: timeout === undefined ? undefined : timeout * 1000, giveUpAfterMs: giveUp === 0 ? undefined : giveUp * 1000, ...common } };
}

function commandOf(name: Exclude<CommandName, 'status'>, args: string[], values: { seconds?: string; requeue?: boolean; prefix?: string; resume?: boolean }): CrawlCommand | string {
  const one = (): string | undefined => (args.length === 1 ? args[0] : undefined);
  const none = args.length === 0;
  switch (name) {
    case 'suspend':
    case 'resume':
    case 'refresh':
    case 'delete':
      return none ? { kind: name } : `${name} takes no arguments`;
    case 'feeding-suspend':
      return none ? { kind: 'feeding_suspend', suspend: !values.resume } : 'feeding-suspend takes no arguments';
    case 'delete-site': {
      const site = one();
      return site ? { kind: 'delete_site', site } : 'delete-site takes one site';
    }
    case 'quarantine': {
      const site = one();
      const seconds = numberOption('seconds', values.seconds, 3600, 1, 365 * 86400, true);
      if (typeof seconds === 'string') return seconds;
      return site ? { kind: 'quarantine', site, seconds, requeue: values.requeue ?? false } : 'quarantine takes one site';
    }
    case 'preempt': {
      const site = one();
      return site ? { kind: 'preempt', site, requeue: values.requeue ?? false } : 'preempt takes one site';
    }
    case 'reprocess': {
      const site = one();
      if (!site) return 'reprocess takes one site';
      const prefix = values.prefix ?? (isHttpUrl(site) ? `${new URL(site).origin}/` : `http://${site}/`);
      return { kind: 'reprocess', site, uri_prefix: prefix };
    }
    case 'delete-uris':
    case 'urgent': {
      if (none) return `${name} takes one URI at least`;
      const bad = args.find((a) => !isHttpUrl(a));
      if (bad) return `${name}: "${bad}" is not an http(s) URL`;
      return name === 'urgent' ? { kind: 'urgent', uris: args } : { kind: 'delete_uris', uris: args };
    }
  }
}
