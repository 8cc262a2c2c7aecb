import type { DeclineCode } from '../gateways/types';

/** Decline cards shared by every emulator (issue #3); any other valid card approves. */
export const DECLINE_CARDS: Record<string, { code: DeclineCode; message: string }> = {
  '4000000000000002': { code: 'card_declined', message: 'Your card was declined.' },
  '4000000000009995': { code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  '4000000000000069': { code: 'expired_card', message: 'Your card has expired.' },
  '4000000000000127': { code: 'incorrect_cvc', message: "Your card's security code is incorrect." },
  '4000000000000119': { code: 'processing_error', message: 'An error occurred while processing your card. Try again in a little bit.' },
};

export function declineFor(cardNumber: unknown): { code: DeclineCode; message: string } | undefined {
  if (typeof cardNumber !== 'string') return undefined;
  return DECLINE_CARDS[cardNumber.replace(/\D+/g, '')];
}

/** Luhn check, so emulators reject numbers a real gateway would call invalid. */
export function luhnValid(cardNumber: string): boolean {
  const digits = cardNumber.replace(/\D+/g, '');
  if (digits.length < 12 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function cardBrand(cardNumber: string): string {
  const d = cardNumber.replace(/\D+/g, '');
  // Elo and Hipercard ranges overlap Visa's and Mastercard's leading digits, so they are checked first.
  if (/^(636368|438935|504175|451416|636297|5067|4576|4011|506699)/.test(d)) return 'elo';
  if (/^(606282|3841)/.test(d)) return 'hipercard';
  if (/^4/.test(d)) return 'visa';
  if (/^(5[0-5]|2[2-7])/.test(d)) return 'mastercard';
  if (/^3[47]/.test(d)) return 'amex';
  return 'visa';
}
