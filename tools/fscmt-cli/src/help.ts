/** The --help text, which is also the documentation of the JSON line format. */
export const HELP = `fscmt - FSCMT frames <-> JSON lines (MS-FSCMT crawler multinode transport)

Usage:
  npm run -s fscmt -- decode [--max-frame-bytes N]  < frames.bin     > messages.jsonl
  npm run -s fscmt -- encode [--max-frame-bytes N]  < messages.jsonl > frames.bin
  npm run -s fscmt -- --help

decode reads FSCMT frames on stdin (a big-endian uint32 length, then the FSWCU tuple
(dict, priority)) and writes one JSON line per message. encode reads such lines and
writes the frames. decode then encode gives back the input bytes exactly.
--max-frame-bytes: largest frame accepted / written (default 16777216).

Line format:
  {"name":"CMD_UM_INIT","cmd":24,"priority":0,"dict":[["xp",{"tuple":["host.contoso.com",10000]}],["mi","49-47-67-86"],["cm",24]]}
  name, cmd   the command (PKT_CMD, key "cm") by name and number; null when the dict has
              no int "cm" or the number is unknown. Optional for encode; if present they
              must agree with the dict.
  priority    0 (normal) or 1 (high)
  dict        the message dict's entries, in wire order, each a [key, value] pair

Values (lossless: each FSWCU / marshal v0 type code keeps its own form):
  null, true, false          None, True, False                      ('N', 'T', 'F')
  123                        int, int32 range only                  ('i')
  "text"                     byte string holding the UTF-8 of text  ('s')
  {"hex":"a9eb"}             byte string that is not UTF-8          ('s')
  {"u":"text"}               unicode string                         ('u')
  {"long":"-123"}            long, decimal                          ('l')
  {"int64":"123"}            64-bit int of older writers, decimal   ('I')
  {"float":"0.5"}            float as text, exactly as on the wire  ('f')
  {"double":"0.5"}           binary float; also inf, -inf, nan, -0  ('g')
  {"double_bits":"7ff8000000000001"}  binary float by its 64 bits, big-endian hex (NaN payloads)
  [ ... ]                    list                                   ('[')
  {"tuple":[ ... ]}          tuple                                  ('(')
  {"dict":[[k, v], ...]}     dict, entries in wire order            ('{')

Errors: bad input stops the run with a message on stderr that names the byte offset
(decode: the offset in stdin; encode: the line number and the offset where the line
starts) and exit status 1. Usage errors exit with status 2.
`;
