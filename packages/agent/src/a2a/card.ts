import type { AgentCard } from '@a2a-js/sdk';
import type { MountedAgent } from '../host.js';

function skills(agent: MountedAgent) {
  const o = agent.def.options;
  return o.skills ?? [{ id: o.name, name: o.name, description: o.description || `Talk to ${o.name}`, tags: [agent.def.kind] }];
}

/** The A2A 1.0 agent card; `url` is the absolute JSON-RPC endpoint. Both 1.0 and 0.3 are declared. */
export function agentCard(agent: MountedAgent, url: string): AgentCard {
  const o = agent.def.options;
  return {
    name: o.name,
    description: o.description,
    version: o.version,
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
    ],
    provider: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: skills(agent).map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      tags: s.tags ?? [],
      examples: [],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    })),
    signatures: [],
  };
}

/** The same card in the A2A 0.3 shape, served to clients that send no `A2A-Version` header. */
export function legacyAgentCard(agent: MountedAgent, url: string): Record<string, unknown> {
  const o = agent.def.options;
  return {
    protocolVersion: '0.3.0',
    name: o.name,
    description: o.description,
    url,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [{ url, transport: 'JSONRPC' }],
    version: o.version,
    capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: skills(agent).map((s) => ({ id: s.id, name: s.name, description: s.description, tags: s.tags ?? [] })),
  };
}
