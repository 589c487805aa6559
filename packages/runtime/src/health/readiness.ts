/** One contributor's answer: whether its part is ready to take traffic, and why not. */
export interface ReadinessCheck {
  ready: boolean;
  /** A short operator-facing reason; never a credential, URL with a password or stack trace. */
  detail?: string;
}

/**
 * Called on every readiness probe, so it must be cheap and synchronous: report state the
 * contributor already tracks (a link's up/down flag, the last write's outcome), never do I/O.
 */
export type ReadinessContributor = () => ReadinessCheck;

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, ReadinessCheck>;
}

/**
 * The readiness seam: modules (cluster link, audit sink, the app's own warm-up) register a
 * contributor under a name; `GET <fw>/ready` is ready only while every one of them is. The
 * runtime knows none of the modules: each registers itself at install time.
 */
export class Readiness {
  private readonly contributors = new Map<string, ReadinessContributor>();

  /** Adds a contributor; returns a remover. A second contributor of the same name is an error. */
  register(name: string, contributor: ReadinessContributor): () => void {
    if (this.contributors.has(name)) throw new Error(`readiness contributor '${name}' is already registered`);
    this.contributors.set(name, contributor);
    return () => {
      if (this.contributors.get(name) === contributor) this.contributors.delete(name);
    };
  }

  names(): string[] {
    return [...this.contributors.keys()];
  }

  /** Asks every contributor; one that throws counts as not ready (its message is not exposed). */
  evaluate(): ReadinessReport {
    const checks: Record<string, ReadinessCheck> = {};
    let ready = true;
    for (const [name, contributor] of this.contributors) {
      let check: ReadinessCheck;
      try {
        const c = contributor();
        check = c.detail === undefined ? { ready: c.ready === true } : { ready: c.ready === true, detail: String(c.detail) };
      } catch {
        check = { ready: false, detail: 'check failed' };
      }
      checks[name] = check;
      if (!check.ready) ready = false;
    }
    return { ready, checks };
  }
}
