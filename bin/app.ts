/**
 * The CDK app: one SignetStack configured from context (see lib/app-context.ts and
 * docs/deploy.md), checked by cdk-nag's AwsSolutions rules at synth.
 *
 *   npx cdk synth --quiet
 *   npx cdk deploy -c apiType=rest -c adminPublicKeyFile=.signet/admin/public.pem
 *
 * A bad context value (an unknown key, a value of the wrong form, a key the stack refuses) ends
 * the synth with one line naming it, not a stack trace: it is the user's to fix. A successful
 * synth says what comes next on stderr (./synth-notes.ts), and warns when no admin key was given.
 */
import { relative } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { settingsFromContext } from '../lib/app-context';
import { SignetStack } from '../lib/signet-stack';
import { synthNotes } from './synth-notes';

function buildApp(): void {
  const app = new App();
  const { stackName, props } = settingsFromContext((key) => app.node.tryGetContext(key), undefined, Object.keys(app.node.getAllContext()));

  new SignetStack(app, stackName, {
    ...props,
    // Region-agnostic unless the CLI knows the target (replicaRegions needs a concrete region).
    env:
      process.env.CDK_DEFAULT_REGION !== undefined
        ? { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION }
        : undefined,
  });

  // Every finding must be fixed or acknowledged (with a reason) where the resource is made.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

  app.synth();
  const notes = synthNotes({ stackName, hasAdmin: props.adminPublicKey !== undefined, context: app.node.getAllContext(), outdir: relative(process.cwd(), app.outdir).startsWith('..') ? app.outdir : relative(process.cwd(), app.outdir) });
  console.error(notes.join('\n'));
}

try {
  buildApp();
} catch (error) {
  console.error(`signet: ${error instanceof Error ? error.message : String(error)} (check the -c context values; docs/deploy.md lists them)`);
  process.exit(1);
}
