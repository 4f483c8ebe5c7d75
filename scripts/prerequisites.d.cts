// Types for prerequisites.cjs (what must be installed before `npm start` and `npm test`).
export type PrerequisiteId = 'node' | 'java' | 'chromium' | 'python' | 'go' | 'openssl';
export type Purpose = 'start' | 'test';

export interface Prerequisite {
  readonly id: PrerequisiteId;
  readonly what: string;
  readonly neededBy: readonly Purpose[];
  problem(): string | undefined;
}

export type Gate = { readonly run: true; readonly missing?: string } | { readonly run: false; readonly marker: string };

export const ALLOW_SKIP_ENV: 'SIGNET_ALLOW_SKIP';
export const INSTALL: { readonly debian: string; readonly macos: string };
export const PREREQUISITES: readonly Prerequisite[];
export function allowedSkips(env?: NodeJS.ProcessEnv): Set<string>;
export function checkPrerequisites(purpose: Purpose, unneeded?: readonly PrerequisiteId[]): { id: PrerequisiteId; what: string; problem: string | undefined }[];
export function chromiumPath(): string | undefined;
export function gate(id: PrerequisiteId, env?: NodeJS.ProcessEnv): Gate;
export function missingMessage(id: PrerequisiteId, problem: string): string;
export function skipMarker(id: PrerequisiteId, problem: string): string;
