// The kinds table (@upfleet/proto/check-kinds) as SQL: which `kind` values count for uptime and
// how a row or a rollup bucket of each counts as passed. Built per query, so the table is the
// only place a kind's rule is written.
import { kindNamesWhere } from '@upfleet/proto/check-kinds';
import { SQL_HTTP_PASSED } from './schema';

const list = (names: readonly string[]) => `(${names.map((n) => `'${n.replace(/[^a-z0-9_]/g, '')}'`).join(', ')})`;

/** `('http', 'tcp', 'dns')`: the kinds an endpoint's uptime counts. */
export const sqlUptimeKinds = (): string => list(kindNamesWhere((s) => s.uptime !== null));

/** A raw row's pass, by its kind's uptime rule. */
export const sqlRowPassed = (): string => `if(kind IN ${list(kindNamesWhere((s) => s.uptime === 'http'))}, ${SQL_HTTP_PASSED}, ok = 1)`;

/** A rollup bucket's passed count, by its kind's uptime rule. */
export const sqlRollupPassed = (): string => `if(kind IN ${list(kindNamesWhere((s) => s.uptime === 'http'))}, ok2xx_n, ok_n)`;

/** The kinds whose results feed any of these graph functions. */
export const kindsForGraphs = (functions: readonly string[]): string[] =>
  kindNamesWhere((s) => functions.some((f) => Object.hasOwn(s.graphs, f)));
