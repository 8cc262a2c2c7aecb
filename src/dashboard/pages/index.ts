import type { DashboardPage } from '../context';
import { signIn } from './sign-in';
import { password } from './password';
import { invitation } from './invitation';
import { accounts } from './accounts';
import { overview } from './overview';
import { apiKey } from './api-key';
import { credentials } from './credentials';
import { settings } from './settings';
import { charges } from './charges';
import { chargeDetail } from './charge-detail';
import { events } from './events';
import { coproducers } from './coproducers';
import { mappings } from './mappings';

/** Every dashboard page, in navigation order. A page is one module: a new page is a new file here and one entry in this list. */
export const PAGES: DashboardPage[] = [signIn, password, invitation, accounts, mappings, overview, charges, chargeDetail, events, coproducers, apiKey, credentials, settings];
