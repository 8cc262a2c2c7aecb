import type { DeclineCode } from '../../gateways/types';
import { declineFor } from '../cards';

/**
 * A gateway's answer to a declined card, T being its own shape (a status_detail, a return code, an error body).
 * The shared decline cards (../cards.ts) come first, answered from `answers` by their normalized code; then the
 * gateway's own sandbox cards from `ownCards` (number -> answer); any other card is not declined here.
 */
export function declineAnswer<T>(cardNumber: unknown, answers: Readonly<Record<DeclineCode, T>>, ownCards: Readonly<Record<string, T>> = {}): T | undefined {
  const shared = declineFor(cardNumber);
  if (shared) return answers[shared.code];
  return typeof cardNumber === 'string' ? ownCards[cardNumber.replace(/\D+/g, '')] : undefined;
}
