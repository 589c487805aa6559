/**
 * Agent memory: the facts an agent keeps across sessions (`@Agent({ memory: true })`). An agent
 * reads and adds them through `ctx.memory`, its newest facts go to the model with each prompt,
 * and an operator lists, adds and removes them in the admin plane. `AgentMemory` is the seam: the
 * default keeps facts in the store (`StoreMemory`); an application may give its own
 * (`agents({ memory })`).
 */
import { randomUUID } from 'node:crypto';
import { BadRequestError, FwError } from '@fw/runtime';
import { FactRecords, type FactRow, type FwStore } from '@fw/store';

export interface AgentFact {
  id: string;
  agent: string;
  content: string;
  /** Who added it: `principal:<id>`, `agent` (the agent itself), or null (the anonymous local operator). */
  source: string | null;
  createdAt: string;
}

export interface AgentMemory {
  /** The agent's facts, newest first. */
  list(agent: string, limit?: number): Promise<AgentFact[]>;
  /** Adds a fact; a bad one is a 400, one past the agent's cap a 409 `memory_full`. */
  add(agent: string, content: string, source: string | null): Promise<AgentFact>;
  /** False when the agent has no fact with that id. */
  remove(agent: string, factId: string): Promise<boolean>;
}

/** What a prompt handler or tool of an agent with memory gets as `ctx.memory`. */
export interface AgentMemoryAccess {
  facts(limit?: number): Promise<AgentFact[]>;
  remember(content: string): Promise<AgentFact>;
  forget(factId: string): Promise<boolean>;
}

export interface MemoryLimits {
  maxFacts: number;
  maxFactChars: number;
}

/** Refused: the agent keeps as many facts as `fw.agent.memory.max-facts` allows. */
export class MemoryFullError extends FwError {
  constructor(agent: string, max: number) {
    super('memory_full', `agent '${agent}' keeps ${max} facts already (fw.agent.memory.max-facts): remove one first`, 409, { agent, max });
  }
}

/** The default memory: facts in the store, written through its write queue (durable when `add` resolves). */
export class StoreMemory implements AgentMemory {
  constructor(
    private readonly store: FwStore,
    private readonly limits: () => MemoryLimits,
  ) {}

  async list(agent: string, limit = 1000): Promise<AgentFact[]> {
    await this.store.writes.flush();
    return (await this.store.facts.list(agent, limit)).map(factOf);
  }

  async add(agent: string, content: string, source: string | null): Promise<AgentFact> {
    const { maxFacts, maxFactChars } = this.limits();
    const text = typeof content === 'string' ? content.trim() : '';
    if (text === '') throw new BadRequestError("a fact's 'content' must be a non-empty string", { field: 'content' });
    if (text.length > maxFactChars)
      throw new BadRequestError(`a fact is at most ${maxFactChars} characters (fw.agent.memory.max-fact-chars), not ${text.length}`, {
        field: 'content',
      });
    const row: FactRow = { id: randomUUID(), agent, content: text, source, created_at: Date.now() };
    // Counted and added in one batch of the agent's lane: two adds at the cap cannot both pass.
    const added = await this.store.writes.commit(async (w) => {
      const facts = new FactRecords(w.db);
      if (maxFacts > 0 && (await facts.count(agent)) >= maxFacts) return false;
      await facts.add(row);
      return true;
    }, `facts:${agent}`);
    if (!added) throw new MemoryFullError(agent, maxFacts);
    return factOf(row);
  }

  async remove(agent: string, factId: string): Promise<boolean> {
    return this.store.writes.commit((w) => new FactRecords(w.db).remove(agent, factId), `facts:${agent}`);
  }
}

function factOf(r: FactRow): AgentFact {
  return { id: r.id, agent: r.agent, content: r.content, source: r.source, createdAt: new Date(Number(r.created_at)).toISOString() };
}
