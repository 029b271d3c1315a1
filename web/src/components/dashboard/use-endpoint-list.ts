// The dashboard's list data. Up to WHOLE_LIST_MAX endpoints it holds the whole list and filters,
// sorts and draws PAGE rows at a time itself; past it, each page comes from the server
// (?q=&status=&sort=&limit=&offset=, X-Total-Count). Either way `apply` folds live results in.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { Endpoint, StatusCounts } from '@upfleet/proto/rest';
import type { ApiClient } from '../../api/client';
import { applyResults, countStatuses, filterAndSort, PAGE, queryString, WHOLE_LIST_MAX, type ListQuery, type ResultEvent } from '../../lib/live-list';

const LIST = '/api/users/endpoints-with-uptime';

export interface EndpointListData {
  /** null while the first load runs. */
  rows: Endpoint[] | null;
  /** Endpoints matching the query, and in the account. */
  matching: number;
  all: number;
  more: number;
  showMore: () => void;
  /** Per status over the whole account (whole mode; server mode: null, the dashboard's counts apply). */
  counts: StatusCounts | null;
  apply: (results: ResultEvent[]) => void;
  update(urlId: number, patch: Partial<Endpoint>): void;
  reload: () => Promise<void>;
}

export function useEndpointList(api: ApiClient, query: ListQuery, totalEndpoints: number | null | undefined): EndpointListData {
  const mode = totalEndpoints === undefined ? null : totalEndpoints !== null && totalEndpoints > WHOLE_LIST_MAX ? 'server' : 'whole';
  const key = queryString(query);
  const [whole, setWhole] = useState<Endpoint[] | null>(null);
  const [server, setServer] = useState<{ rows: Endpoint[]; total: number } | null>(null);
  const [shown, setShown] = useState(PAGE);
  const seq = useRef(0);

  const loadWhole = useCallback(async () => {
    try {
      // Through the query path: every row's live fields as of now (the plain list of a large
      // account is a rendering up to 30 s old).
      const res = await api.get<Endpoint[]>(`${LIST}?sort=status`);
      setWhole((x) => (res.success ? res.data ?? [] : x ?? [])); // a failed reload keeps the rows shown
      if (!res.success) console.error('load endpoints failed', res.status, res.error);
    } catch (err) {
      console.error('load endpoints failed', err);
      setWhole((x) => x ?? []);
    }
  }, [api]);

  const loadPage = useCallback(async (offset: number) => {
    const mine = ++seq.current;
    try {
      const res = await api.get<Endpoint[]>(`${LIST}?${key}&limit=${PAGE}&offset=${offset}`);
      if (mine !== seq.current) return; // a newer query answered first
      const data = res.success ? res.data ?? [] : [];
      if (!res.success) console.error('load endpoints failed', res.status, res.error);
      setServer((prev) => ({ rows: offset > 0 && prev ? [...prev.rows, ...data] : data, total: res.total ?? offset + data.length }));
    } catch (err) {
      console.error('load endpoints failed', err);
      setServer((x) => x ?? { rows: [], total: 0 });
    }
  }, [api, key]);

  useEffect(() => {
    if (mode === 'whole') void loadWhole();
  }, [mode, loadWhole]);
  useEffect(() => {
    if (mode !== 'server') return;
    const t = setTimeout(() => void loadPage(0), server ? 150 : 0); // typing: one request per pause
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [mode, loadPage]);
  useEffect(() => setShown(PAGE), [key]);

  const matchingRows = useMemo(() => (whole ? filterAndSort(whole, query) : null), [whole, key]); // eslint-disable-line react-hooks/exhaustive-deps
  const counts = useMemo(() => (whole ? countStatuses(whole) : null), [whole]);

  const apply = useCallback((results: ResultEvent[]) => {
    setWhole((list) => list && applyResults(list, results));
    setServer((s) => s && { ...s, rows: applyResults(s.rows, results) });
  }, []);
  const update = useCallback((urlId: number, patch: Partial<Endpoint>) => {
    const fix = (list: Endpoint[]) => list.map((e) => (e.url_id === urlId ? { ...e, ...patch } : e));
    setWhole((list) => list && fix(list));
    setServer((s) => s && { ...s, rows: fix(s.rows) });
  }, []);
  const reload = useCallback(() => (mode === 'server' ? loadPage(0) : loadWhole()), [mode, loadPage, loadWhole]);

  if (mode === 'server') {
    const rows = server?.rows ?? null;
    return {
      rows, matching: server?.total ?? 0, all: totalEndpoints ?? 0, more: server ? Math.max(0, server.total - server.rows.length) : 0,
      showMore: () => void loadPage(rows?.length ?? 0), counts: null, apply, update, reload,
    };
  }
  const rows = matchingRows ? matchingRows.slice(0, shown) : null;
  return {
    rows, matching: matchingRows?.length ?? 0, all: whole?.length ?? 0, more: matchingRows ? matchingRows.length - (rows?.length ?? 0) : 0,
    showMore: () => setShown((n) => n + PAGE), counts, apply, update, reload,
  };
}
