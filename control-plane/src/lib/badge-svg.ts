// Shields-style badges: a grey label and a coloured value, text XML-escaped, widths from a rough
// per-character measure of 11 px Verdana (what shields.io draws with).
const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[c]!);

export const BADGE_COLORS = { green: '#4c1', yellow: '#dfb317', red: '#e05d44', blue: '#007ec6', grey: '#9f9f9f' } as const;
export type BadgeColor = keyof typeof BADGE_COLORS;

const NARROW = new Set('iIl.,:;!|\'()[] ');
const WIDE = new Set('mwMW%@');
/** Text width in px at 11 px Verdana, near enough for a badge. */
const textWidth = (s: string) => [...s].reduce((w, c) => w + (NARROW.has(c) ? 3.5 : WIDE.has(c) ? 10 : 7), 0);

export function badgeSvg(label: string, value: string, color: BadgeColor): string {
  const lw = Math.round(textWidth(label) + 10);
  const vw = Math.round(textWidth(value) + 10);
  const w = lw + vw;
  const l = escapeXml(label);
  const v = escapeXml(value);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="${l}: ${v}"><title>${l}: ${v}</title>`
    + '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>'
    + `<clipPath id="r"><rect width="${w}" height="20" rx="3" fill="#fff"/></clipPath>`
    + `<g clip-path="url(#r)"><rect width="${lw}" height="20" fill="#555"/><rect x="${lw}" width="${vw}" height="20" fill="${BADGE_COLORS[color]}"/><rect width="${w}" height="20" fill="url(#s)"/></g>`
    + '<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">'
    + `<text x="${lw / 2}" y="15" fill="#010101" fill-opacity=".3">${l}</text><text x="${lw / 2}" y="14">${l}</text>`
    + `<text x="${lw + vw / 2}" y="15" fill="#010101" fill-opacity=".3">${v}</text><text x="${lw + vw / 2}" y="14">${v}</text></g></svg>`;
}
