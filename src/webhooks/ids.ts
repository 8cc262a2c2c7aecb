import { randomHex } from '../lib/random-hex';

// `evt_` / `dlv_` and 32 hex digits: the creation time in milliseconds (12 digits), then 80 random bits, as a
// charge id (src/charges/create.ts). Random ids put every new event and delivery on a random page of each index
// keyed by them (the tables' keys, deliveries_event, delivery_attempts_delivery): a page written to the WAL, and
// checkpointed, per event. Time first, they are appended at the right end, where the previous one's page is.
const timeOrdered = (prefix: string) => `${prefix}${Date.now().toString(16).padStart(12, '0')}${randomHex(10)}`;

export const newEventId = (): string => timeOrdered('evt_');
export const newDeliveryId = (): string => timeOrdered('dlv_');
