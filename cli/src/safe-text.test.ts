import { describe, expect, it } from 'vitest';
import { stripControls } from './safe-text';
import { formatTable } from './formatters/table';

describe('stripControls', () => {
  it.each([
    ['colour (CSI SGR)', 'a\x1b[31mred\x1b[0m', 'ared'],
    ['cursor and erase (CSI)', 'x\x1b[2J\x1b[1;1Hy', 'xy'],
    ['window title (OSC ended by BEL)', '\x1b]0;pwned\x07name', 'name'],
    ['hyperlink (OSC 8 ended by ST)', '\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\', 'click'],
    ['8-bit CSI (C1)', 'a\x9b31mb', 'a31mb'],
    ['backspace overwrite and carriage return', 'safe\rEVIL\b\b', 'safeEVIL'],
    ['bell, NUL and DEL', 'a\x07b\x00c\x7fd', 'abcd'],
    ['bidi override', 'abc\u202edcba', 'abcdcba'],
  ])('removes %s', (_name, input, expected) => {
    expect(stripControls(input)).toBe(expected);
  });

  it('keeps newlines, plain text and non-ASCII letters; tabs become spaces', () => {
    expect(stripControls('Zürich\tFrankfurt\n東京')).toBe('Zürich Frankfurt\n東京');
  });

  it('keeps table cells free of terminal controls', () => {
    const text = formatTable([{ header: 'NAME', value: (r: { n: string }) => r.n }], [{ n: '\x1b[8mhidden\x1b[0m\x1b]0;title\x07' }]);
    expect(text).toBe('NAME\nhidden\n');
  });
});
