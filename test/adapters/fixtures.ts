/**
 * Reads the real API Gateway events in test/fixtures/apigateway (copied into the repository; its
 * README says where each comes from). Each call returns a fresh copy, so a test can change it into a variant.
 */
import fs from 'node:fs';
import path from 'node:path';

export const FIXTURE_DIR = path.resolve(__dirname, '../fixtures/apigateway');

export function loadFixture<T = any>(name: string): T {
  return JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, name), 'utf8')) as T;
}
