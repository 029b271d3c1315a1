import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as schemas from './index';

// The public-API issue turns these schemas into OpenAPI: each body and query must convert, under its id.
const bodies = Object.entries(schemas).filter(([name, v]) => v instanceof z.ZodType && /(Body|Query)$/.test(name));

describe('REST schemas as JSON Schema', () => {
  it('covers every REST body and query', () => {
    expect(bodies.map(([n]) => n).sort()).toEqual([
      'AgentTokenCreateBody', 'AlertMethodCreateBody', 'AlertMethodUpdateBody', 'AlertThresholdsBody', 'ApiKeyCreateBody', 'CheckoutSessionBody', 'EndpointCreateBody',
      'EndpointListQuery', 'EndpointToggleBody', 'EndpointUpdateBody', 'GraphQuery', 'IncidentStatsQuery', 'IncidentsAcknowledgeBody', 'IncidentsQuery', 'LoginBody', 'LogoutBody', 'PasswordChangeBody',
      'ProfileUpdateBody', 'PublicCheckoutSessionBody', 'RefreshBody', 'RegionCreateBody', 'ResultsCountQuery', 'ResultsExportQuery', 'SetPackageBody',
      'SetPackagePriceBody', 'SignupBody', 'TwoFactorDisableBody', 'TwoFactorVerifyBody', 'OidcTwoFactorBody',
      // Status pages
      'MaintenanceBody', 'SlugQuery', 'StatusPageBody', 'StatusReportBody', 'StatusReportEditBody', 'StatusUpdateBody', 'StatusUpdateEditBody', 'SubscribeBody',
      // Workspaces
      'AuditLogQuery', 'InvitationBody', 'MemberRoleBody', 'WorkspaceBody', 'WorkspaceDeleteBody',
      // Operators move a workspace's plan by its id
      'WorkspaceSetPackageBody',
      // On-call escalation
      'EscalationPolicyBody',
      // Storms: a workspace's group threshold
      'AlertSettingsBody',
      // Reports
      'SlaReportQuery', 'ReportScheduleBody',
      // Browser checks: Run now
      'BrowserRunBody',
    ].sort());
  });
  it.each(bodies)('%s converts, named by its id', (name, schema) => {
    const json = z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' }) as { $ref?: string; $defs?: Record<string, unknown> };
    expect(json.$ref).toBe(`#/$defs/${name}`);
    expect(json.$defs?.[name]).toBeTruthy();
  });
  it('keeps the SPEC limits in the generated constraints', () => {
    const json = z.toJSONSchema(schemas.SignupBody, { io: 'input' }) as unknown as { $defs: { SignupBody: { properties: Record<string, { minLength?: number; maxLength?: number }> } } };
    expect(json.$defs.SignupBody.properties.username).toMatchObject({ minLength: 3, maxLength: 30 });
    expect(json.$defs.SignupBody.properties.password).toMatchObject({ minLength: 8 });
  });
});
