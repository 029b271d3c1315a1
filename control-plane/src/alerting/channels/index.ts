// The channel for each platform, built once from config.
import type { AlertPlatform } from '@upfleet/proto/rest';
import type { Channel } from '../types';
import { createDiscordChannel } from './discord';
import { createEmailChannel } from './email';
import { createHttpSender } from './http';
import { createPagerDutyChannel } from './pagerduty';
import { createSlackChannel } from './slack';
import { createSmsChannel, type TwilioSettings } from './sms';
import { createTeamsChannel } from './teams';
import { createTelegramChannel } from './telegram';
import { createWebhookChannel } from './webhook';

export interface ChannelSettings {
  publicUrl: string | null;
  allowPrivateTargets: boolean;
  slackApiUrl: string;
  telegramApiUrl: string;
  /** Absent: PagerDuty's own (https://events.pagerduty.com). */
  pagerdutyApiUrl?: string;
  twilio: TwilioSettings;
  smtp: { url: string | null; from: string | null };
}

export function createChannels(s: ChannelSettings): Record<AlertPlatform, Channel> {
  const http = createHttpSender({ allowPrivateTargets: s.allowPrivateTargets });
  return {
    email: createEmailChannel({ smtpUrl: s.smtp.url, from: s.smtp.from, publicUrl: s.publicUrl }),
    slack: createSlackChannel({ apiUrl: s.slackApiUrl, publicUrl: s.publicUrl }),
    telegram: createTelegramChannel({ http, apiUrl: s.telegramApiUrl, publicUrl: s.publicUrl }),
    webhook: createWebhookChannel({ http, publicUrl: s.publicUrl }),
    sms: createSmsChannel({ http, twilio: s.twilio, publicUrl: s.publicUrl }),
    discord: createDiscordChannel({ http, publicUrl: s.publicUrl }),
    teams: createTeamsChannel({ http, publicUrl: s.publicUrl }),
    pagerduty: createPagerDutyChannel({ http, apiUrl: s.pagerdutyApiUrl ?? 'https://events.pagerduty.com', publicUrl: s.publicUrl }),
  };
}
