// Incidents as a table for people: state, endpoint, condition, cause, opened (UTC), duration, who acknowledged.
import type { Incident } from '@upfleet/proto/rest';
import { formatDuration } from '../lib/duration';
import { formatList, type Column } from './table';
import { formatDate } from './time';

export function acknowledger(i: Incident): string {
  const by = i.acknowledged_by;
  if (!by) return '';
  return by.via === 'link' ? 'via link' : by.name ?? by.email ?? '';
}

export function incidentColumns(nowMs: number): Column<Incident>[] {
  return [
    { header: 'ID', value: (i) => i.incident_id, align: 'right' },
    { header: 'STATE', value: (i) => i.state },
    { header: 'ENDPOINT', value: (i) => i.endpoint_name ?? `#${i.url_id}` },
    { header: 'CONDITION', value: (i) => i.condition },
    { header: 'CAUSE', value: (i) => i.cause },
    { header: 'OPENED (UTC)', value: (i) => formatDate(i.opened_at) },
    { header: 'DURATION', value: (i) => formatDuration(Math.max(0, Math.round(((i.resolved_at ? Date.parse(i.resolved_at) : nowMs) - Date.parse(i.opened_at)) / 1000))) },
    { header: 'ACKNOWLEDGED BY', value: acknowledger },
  ];
}

export const formatIncidents = (list: Incident[], nowMs: number): string => formatList(incidentColumns(nowMs), list, 'No incidents.');
