/**
 * Writes docs/openapi/registry.json from the registry's contract (lambda/registry/contract/).
 * Run after changing a schema or a route's description: `npm run -s openapi`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { registryOpenApiText } from '../lambda/registry/contract/openapi-document';

const target = join(__dirname, '..', 'docs', 'openapi', 'registry.json');
writeFileSync(target, registryOpenApiText());
console.log(`wrote ${target}`);
