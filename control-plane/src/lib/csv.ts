// CSV as RFC 4180 writes it (CRLF lines; a field with a comma, quote or line break in quotes, its
// quotes doubled), safe to open in a spreadsheet: a text cell that starts like a formula (= + - @,
// or a tab or carriage return before one) gets a leading ' so it is shown, never evaluated.
const NEEDS_QUOTES = /[",\r\n]/;
const FORMULA_START = /^[=+\-@\t\r]/;

export type CsvValue = string | number | boolean | null | undefined;

export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  // Numbers and booleans are ours and never a formula (a negative number stays a number).
  if (typeof value !== 'string') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: readonly CsvValue[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
