// Pix BR Codes (EMV QR "copia e cola") for the emulators: what a payer's bank app would read, with a valid
// CRC so clients that check it accept the sandbox's codes.

/** One EMV field: id, two-digit length, value. */
export function emvField(id: string, value: string): string {
  return id + String(value.length).padStart(2, '0') + value;
}

/** CRC16/CCITT-FALSE, the checksum that closes a BR Code (field 63). */
export function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

export interface BrCodeOptions {
  /** Merchant account info: a dynamic-charge URL (field 25) or a pix key (field 01). */
  location?: string;
  key?: string;
  amountReais: number;
  merchantName: string;
  city: string;
  txid?: string;
}

/** A dynamic or static pix BR Code with the amount in reais. */
export function pixBrCode(o: BrCodeOptions): string {
  const account = emvField('00', 'br.gov.bcb.pix') + (o.location ? emvField('25', o.location) : emvField('01', o.key ?? ''));
  const payload = emvField('00', '01') + emvField('01', '12') + emvField('26', account) + emvField('52', '0000') + emvField('53', '986')
    + emvField('54', o.amountReais.toFixed(2)) + emvField('58', 'BR') + emvField('59', o.merchantName.slice(0, 25))
    + emvField('60', o.city.slice(0, 15)) + emvField('62', emvField('05', (o.txid ?? '***').slice(0, 25))) + '6304';
  return payload + crc16(payload);
}
