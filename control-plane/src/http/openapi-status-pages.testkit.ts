// The status-page part of openapi.test.ts: calls each documented status-page operation once (success
// and an error), through the test's `call`, which checks the answer against the document.
type Call = (method: string, docPath: string, url: string, body?: unknown, token?: string) => Promise<{ status: number; body: any }>;

export async function exerciseStatusPages(call: Call, key: string, endpointId: number): Promise<void> {
  const iso = (ms: number) => new Date(ms).toISOString();
  const P = '/api/users/status-pages';
  const created = await call('POST', P, P, { slug: `openapi-${process.pid}`, title: 'Docs status', components: [{ name: 'Docs', endpoint_id: endpointId, group: 'Web' }] }, key);
  const id = created.body.data.id as number;
  await call('POST', P, P, { slug: 'admin', title: 'x' }, key); // 400
  await call('POST', P, P, { slug: `openapi-${process.pid}`, title: 'x' }, key); // 409
  await call('GET', P, P, undefined, key);
  await call('GET', `${P}/slug-available`, `${P}/slug-available?slug=openapi-free`, undefined, key);
  await call('GET', `${P}/{id}`, `${P}/${id}`, undefined, key);
  await call('GET', `${P}/{id}`, `${P}/987654`, undefined, key); // 404
  await call('POST', `${P}/{id}/verify-domain`, `${P}/${id}/verify-domain`, undefined, key); // 400: no custom domain yet
  await call('PUT', `${P}/{id}`, `${P}/${id}`, { slug: `openapi-${process.pid}`, title: 'Docs status', components: created.body.data.components, custom_domain: `openapi-${process.pid}.example.com` }, key);
  await call('POST', `${P}/{id}/verify-domain`, `${P}/${id}/verify-domain`, undefined, key); // found: false (no such record)
  const comp = created.body.data.components[0].component_id as number;
  const rep = await call('POST', `${P}/{id}/reports`, `${P}/${id}/reports`, { title: 'Slow docs', message: 'Looking', affected: [{ component_id: comp, impact: 'degraded' }] }, key);
  const rid = rep.body.data.report_id as number;
  await call('GET', `${P}/{id}/reports`, `${P}/${id}/reports`, undefined, key);
  await call('PUT', `${P}/{id}/reports/{report_id}`, `${P}/${id}/reports/${rid}`, { title: 'Slow docs pages' }, key);
  const upd = await call('POST', `${P}/{id}/reports/{report_id}/updates`, `${P}/${id}/reports/${rid}/updates`, { status: 'resolved', message: 'Fixed' }, key);
  const uid = upd.body.data.updates[0].update_id as number;
  await call('PUT', `${P}/{id}/reports/{report_id}/updates/{update_id}`, `${P}/${id}/reports/${rid}/updates/${uid}`, { message: 'Fixed for good' }, key);
  await call('DELETE', `${P}/{id}/reports/{report_id}/updates/{update_id}`, `${P}/${id}/reports/${rid}/updates/${uid}`, undefined, key);

  const slug = created.body.data.slug as string;
  await call('GET', '/api/public/status/{slug}', `/api/public/status/${slug}`);
  await call('GET', '/api/public/status/{slug}', '/api/public/status/no-such-page'); // 404

  await call('POST', '/api/public/status/{slug}/subscribe', `/api/public/status/${slug}/subscribe`, { email: 'reader@example.com' });
  await call('POST', '/api/public/status/{slug}/subscribe', `/api/public/status/${slug}/subscribe`, { email: 'not-an-address' }); // 400
  const subs = await call('GET', `${P}/{id}/subscribers`, `${P}/${id}/subscribers`, undefined, key);
  await call('DELETE', `${P}/{id}/subscribers/{subscriber_id}`, `${P}/${id}/subscribers/${subs.body.data.subscribers[0].id}`, undefined, key);
  await call('DELETE', `${P}/{id}/subscribers/{subscriber_id}`, `${P}/${id}/subscribers/987654`, undefined, key); // 404
  await call('DELETE', `${P}/{id}/reports/{report_id}`, `${P}/${id}/reports/${rid}`, undefined, key);
  const M = '/api/users/maintenance-windows';
  const w = await call('POST', M, M, { title: 'Upgrade', endpoint_ids: [endpointId], starts_at: iso(Date.now() + 3600_000), ends_at: iso(Date.now() + 7200_000) }, key);
  await call('POST', M, M, { title: 'Upgrade', endpoint_ids: [987654], starts_at: iso(Date.now() + 3600_000), ends_at: iso(Date.now() + 7200_000) }, key); // 404
  await call('GET', M, M, undefined, key);
  await call('GET', `${M}/{id}`, `${M}/${w.body.data.id}`, undefined, key);
  await call('PUT', `${M}/{id}`, `${M}/${w.body.data.id}`, { title: 'Upgrade 2', endpoint_ids: [endpointId], starts_at: iso(Date.now() - 60_000), ends_at: iso(Date.now() + 7200_000) }, key);
  await call('DELETE', `${M}/{id}`, `${M}/${w.body.data.id}`, undefined, key);
  await call('DELETE', `${P}/{id}`, `${P}/${id}`, undefined, key);
}
