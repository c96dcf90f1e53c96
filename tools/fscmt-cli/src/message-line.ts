/**
 * One FSCMT message as one JSON line, losslessly: the message dict in the tagged JSON form of @esp/codecs
 * (fswcuToJson), plus the priority, with the command number and name up front for people reading the stream.
 *
 *   {"name":"CMD_UM_INIT","cmd":24,"priority":0,"dict":[["xp",{"tuple":["host.contoso.com",10000]}],...]}
 */
import {
  CodecError,
  fscmtCommandName,
  fswcuDictFromJsonEntries,
  fswcuDictToJsonEntries,
  type FscmtPriority,
  type FswcuDict,
  type FswcuJson,
} from '@esp/codecs';

export interface MessageLine {
  name: string | null;
  cmd: number | null;
  priority: FscmtPriority;
  dict: FswcuJson[];
}

/** PKT_CMD when it is an int; null when the dict has none (the codec does not require one). */
function commandOf(dict: FswcuDict): number | null {
  const cm = dict.getText('cm');
  return typeof cm === 'number' ? cm : null;
}

export function messageToLine(dict: FswcuDict, priority: FscmtPriority): string {
  const cmd = commandOf(dict);
  const line: MessageLine = {
    name: cmd === null ? null : (fscmtCommandName(cmd) ?? null),
    cmd,
    priority,
    dict: fswcuDictToJsonEntries(dict),
  };
  return JSON.stringify(line);
}

/** A line that does not describe a message. */
export class MessageLineError extends CodecError {
  override name = 'MessageLineError';
  constructor(message: string, options: { offset?: number; cause?: unknown } = {}) {
    super('FSCMT_CLI_BAD_LINE', message, options);
  }
}

export function lineToMessage(text: string): { dict: FswcuDict; priority: FscmtPriority } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new MessageLineError(`invalid JSON (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new MessageLineError('expected an object {"priority": 0|1, "dict": [[key, value], ...]}');
  }
  const record = json as Record<string, unknown>;
  const priority = record['priority'];
  if (priority !== 0 && priority !== 1) throw new MessageLineError('"priority" must be 0 or 1');
  const dict = fswcuDictFromJsonEntries(record['dict'], '$.dict');
  // "cmd" and "name" are there for readers; if given they must agree with the dict, so an edit is never ignored.
  const cmd = commandOf(dict);
  if ('cmd' in record && record['cmd'] !== cmd) {
    throw new MessageLineError(`"cmd" is ${JSON.stringify(record['cmd'])} but the dict's "cm" entry is ${JSON.stringify(cmd)}`);
  }
  if ('name' in record) {
    const name = cmd === null ? null : (fscmtCommandName(cmd) ?? null);
    if (record['name'] !== name) {
      throw new MessageLineError(`"name" is ${JSON.stringify(record['name'])} but the dict's "cm" entry is ${JSON.stringify(name ?? cmd)}`);
    }
  }
  return { dict, priority };
}
