// The catalogue: regions and monitor types (signed in, in a workspace) and the public packages and
// regions the pricing page reads.
import type { Router } from 'express';
import type { CatalogRepo } from '../../store/catalog-repo';
import { mount, route, strictRouter, type RouteDecl } from '../route-table';

export function catalogRoutes(catalog: CatalogRepo): RouteDecl[] {
  return [
    route('get', '/users/regions', 'viewer', (_req, res) => {
      res.json({ success: true, data: catalog.listRegions() });
    }),
    route('get', '/users/monitor-types', 'viewer', (_req, res) => {
      res.json({ success: true, data: catalog.listMonitorTypes() });
    }),
  ];
}

export function publicRoutes(catalog: CatalogRepo): Router {
  return mount(strictRouter(), [
    route('get', '/public/packages', 'public', (_req, res) => {
      res.json({ success: true, data: catalog.listPackages() });
    }),
    route('get', '/public/regions', 'public', (_req, res) => {
      res.json({ success: true, data: catalog.listRegions() });
    }),
  ]);
}
