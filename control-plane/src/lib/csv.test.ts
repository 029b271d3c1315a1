import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from './csv';

describe('csv', () => {
  it('quotes a field with a comma, quote or line break and doubles its quotes (RFC 4180)', () => {
    expect(csvLine(['a', 'b,c', 'say "hi"', 'two\nlines', 'cr\rhere'])).toBe('a,"b,c","say ""hi""","two\nlines","cr\rhere"\r\n');
  });
  it('prefixes text that starts like a formula with a quote so a spreadsheet shows it', () => {
    expect(['=1+1', '+SUM(A1)', '-2', '@cmd', '\tx'].map(csvCell)).toEqual(["'=1+1", "'+SUM(A1)", "'-2", "'@cmd", "'\tx"]);
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
  });
  it('writes numbers, booleans and empty values as they are', () => {
    expect(csvLine([-1.5, true, null, undefined, ''])).toBe('-1.5,true,,,\r\n');
  });
});
