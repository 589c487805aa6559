/**
 * A client address as a resource keeps it for as long as it lives: an IPv4 address as its 32
 * bits, so that tens of thousands of idle connections hold no address string each.
 */

/**
 * `a.b.c.d` as its 32 bits (an int kept inline); anything else (IPv6, a mapped address, '') as
 * the string. Read character by character: this runs once per connection, and splitting and
 * testing each octet with a regular expression was a tenth of fw's own work in a connect.
 */
export function packAddress(address: string): number | string {
  let bits = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < address.length; i++) {
    const c = address.charCodeAt(i);
    if (c === 0x2e) {
      if (digits === 0 || ++dots > 3) return address;
      bits = (bits << 8) | octet;
      octet = 0;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      // Only the canonical form packs (no leading zero): what unpacks must be the very string that came in.
      if (digits === 1 && octet === 0) return address;
      octet = octet * 10 + (c - 0x30);
      if (++digits > 3 || octet > 255) return address;
    } else return address;
  }
  return dots === 3 && digits > 0 ? (bits << 8) | octet : address;
}

export function unpackAddress(address: number | string): string {
  if (typeof address === 'string') return address;
  return `${address >>> 24}.${(address >>> 16) & 255}.${(address >>> 8) & 255}.${address & 255}`;
}
