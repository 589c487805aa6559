export { RunTape, type TapeView } from './tape.js';
export { TapeRecorder, type TapeRecorderOptions } from './recorder.js';
export { TapeReader, type TapeRunQuery, type TapeRunTree } from './reader.js';
export { replayRun, type ReplayResult, type ReplayDivergence, type ReplayedToolCall } from './replay.js';
export { TAPE_CONFIG } from './config.js';
export type * from './steps.js';
export { Reruns, type RerunCaller, type RerunStarted, type RerunEnded } from './rerun.js';
export { compareRuns, type RunComparison, type ComparedStep, type ComparedRun } from './compare.js';
