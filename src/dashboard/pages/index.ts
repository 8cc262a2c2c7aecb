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

/**
 * Every dashboard page, in navigation order. A page is one module: the events page (with webhooks) and the
 * coproducers page (with splits) are each a new file here and one line in this list.
 */
export const PAGES: DashboardPage[] = [signIn, password, invitation, accounts, overview, charges, chargeDetail, apiKey, credentials, settings];
