/**
 * The query strings resources connected with, each kept once: an app's clients send the same few
 * (`?fw=1&ids=implicit`), and a string of its own per connection is ~40 bytes. A resume's
 * (`tracking=`, one per connection) is not kept, nor a long one, and past `max` distinct ones a
 * new one is used as it is: an attacker's junk fills the table, never the heap.
 */
export class QueryStrings {
  private readonly known = new Map<string, string>();

  constructor(private readonly max = 256) {}

  /**
   * The equal string kept before, or a copy of `search` of its own: a string sliced from a URL
   * would keep the whole URL alive as long as the resource that holds it.
   */
  share(search: string): string {
    const known = this.known.get(search);
    if (known !== undefined) return known;
    const own = flat(search);
    if (this.known.size < this.max && search.length <= 128 && !search.includes('tracking=')) this.known.set(own, own);
    return own;
  }
}

/** A copy that does not keep the string it was sliced from alive. */
function flat(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}
