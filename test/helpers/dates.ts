import { brazilToday } from '../../src/lib/iso-time';

/** The calendar date `days` after today in Brazil, where the gateways count dates (src/lib/iso-time.ts). */
export const brazilDate = (days = 0): string => new Date(Date.parse(`${brazilToday()}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
