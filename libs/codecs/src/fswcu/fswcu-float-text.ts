/**
 * The decimal text of marshal v0's 'f' floats. CPython writes them with C's "%.17g" (not repr: 0.1 is written as
 * "0.10000000000000001", 100.0 as "100"), so that is what we write, to produce the same bytes as CPython.
 */

const SIGNIFICANT = 17;

/** `value` formatted as C's printf("%.17g"), with CPython's spellings of the non-finite values. */
export function formatFswcuFloatText(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  const negative = value < 0 || Object.is(value, -0);
  // toExponential rounds correctly to the requested digits, which is what %.17g needs; then we lay the digits out.
  const exp = Math.abs(value).toExponential(SIGNIFICANT - 1);
  const ePos = exp.indexOf('e');
  const digits = exp[0] + exp.slice(2, ePos);
  const exponent = Number(exp.slice(ePos + 1));
  let body: string;
  if (exponent < -4 || exponent >= SIGNIFICANT) {
    const mantissa = stripFraction(digits[0], digits.slice(1));
    const sign = exponent < 0 ? '-' : '+';
    const magnitude = String(Math.abs(exponent)).padStart(2, '0');
    body = `${mantissa}e${sign}${magnitude}`;
  } else if (exponent >= 0) {
    body = stripFraction(digits.slice(0, exponent + 1), digits.slice(exponent + 1));
  } else {
    body = stripFraction('0', '0'.repeat(-exponent - 1) + digits);
  }
  return negative ? `-${body}` : body;
}

function stripFraction(whole: string, fraction: string): string {
  let end = fraction.length;
  while (end > 0 && fraction.charCodeAt(end - 1) === 0x30) end--;
  return end === 0 ? whole : `${whole}.${fraction.slice(0, end)}`;
}

// What CPython's PyOS_string_to_double accepts: no spaces, no underscores, no hex; inf/infinity/nan in any case.
const FLOAT_TEXT = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;

/** Parses 'f' text as CPython does; undefined when CPython would refuse it. */
export function parseFswcuFloatText(text: string): number | undefined {
  if (!FLOAT_TEXT.test(text)) return undefined;
  const lower = text.toLowerCase();
  const unsigned = lower[0] === '-' || lower[0] === '+' ? lower.slice(1) : lower;
  if (unsigned === 'nan') return NaN;
  if (unsigned === 'inf' || unsigned === 'infinity') return lower[0] === '-' ? -Infinity : Infinity;
  return Number(text);
}
