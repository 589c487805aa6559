import { createInterface } from 'node:readline';
import { PART_INFO, PARTS, type Part } from './parts.js';

/**
 * Asks for each part (Enter takes the default, shown in capitals); resolves with the chosen ones.
 * Reads lines as they come, buffered, so typed-ahead or pasted answers are not lost; if the input
 * ends early, the parts not answered take their defaults.
 */
export async function askParts(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Promise<Set<Part>> {
  const rl = createInterface({ input, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  try {
    const chosen = new Set<Part>();
    for (const part of PARTS) {
      const info = PART_INFO[part];
      for (;;) {
        output.write(`${info.question} ${info.byDefault ? '(Y/n)' : '(y/N)'} `);
        const next = await lines.next();
        const answer = next.done ? '' : String(next.value).trim().toLowerCase();
        if (next.done) output.write('\n');
        if (answer === '' ? info.byDefault : answer === 'y' || answer === 'yes') {
          chosen.add(part);
          break;
        }
        if (answer === '' || answer === 'n' || answer === 'no') break;
        output.write('Please answer y or n.\n');
      }
    }
    return chosen;
  } finally {
    rl.close();
  }
}
