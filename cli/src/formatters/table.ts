// Aligned plain-text tables for humans; scripts use --json instead, so no colours or borders.
import { stripControls } from '../safe-text';
export interface Column<Row> {
  header: string;
  value: (row: Row) => string | number | boolean | null | undefined;
  align?: 'left' | 'right';
}

const GAP = '  ';

export function cellText(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined || value === '') return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  // Cells are single-line so columns stay aligned, and show data, never terminal controls.
  return stripControls(String(value)).replace(/\s+/g, ' ');
}

/** Header row plus one row per item, columns padded to their widest cell; ends with a newline. */
export function formatTable<Row>(columns: Column<Row>[], rows: readonly Row[]): string {
  const cells = rows.map((row) => columns.map((c) => cellText(c.value(row))));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i].length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (columns[i].align === 'right' ? v.padStart(widths[i]) : v.padEnd(widths[i])))
      .join(GAP)
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join('\n') + '\n';
}

/** A table, or a short sentence when there is nothing to list. */
export function formatList<Row>(columns: Column<Row>[], rows: readonly Row[], emptyText: string): string {
  return rows.length === 0 ? `${emptyText}\n` : formatTable(columns, rows);
}
