/**
 * Names of the environment variables Signet's Lambdas read, and the default role catalogue, as
 * the settings table (lambda/settings.ts) defines them; kept for the modules that import them here.
 */
export { ACCOUNT_ADMIN_ROLE } from './core/defaults';
export { DEFAULT_ROLE_CATALOGUE, ENV } from './settings';
