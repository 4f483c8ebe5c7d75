/**
 * Helpers for the CDK tests: apps with or without bundling, cdk-nag findings, and ways to pick
 * resources and policy statements out of a synthesized template.
 */
import { App, AppProps, CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { IConstruct } from 'constructs';

/**
 * `new App(props)` for the CDK tests, without the CDK's built-in CloudFormation template validation
 * (`builtinCloudFormationValidation`, on by default in every app): it reports its findings as
 * warnings that no test reads, and its WASM engine costs about 2.5 s of CPU to start in each test
 * file and 0.3-1 s per synth. Signet's stacks are validated once, with the findings as errors, in
 * signet-stack-http.test.ts ("CloudFormation validation").
 */
export function testApp(props: AppProps = {}): App {
  return new App({ builtinCloudFormationValidation: false, ...props });
}

/**
 * An app that skips asset bundling (the CDK's `aws:cdk:bundling-stacks` context set to none):
 * for tests about props and resources, not about the Lambda bundles.
 */
export function appWithoutBundling(props: AppProps = {}): App {
  return testApp({ ...props, context: { 'aws:cdk:bundling-stacks': [], ...props.context } });
}

/**
 * Runs `build` without the CDK's "Bundling asset <path>..." progress lines (it writes one to
 * stderr for every function it bundles while the stack is constructed); anything else written to
 * stderr passes, and an error thrown by `build` says what failed.
 */
export function withoutBundlingProgress<T>(build: () => T): T {
  const write = process.stderr.write.bind(process.stderr);
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) =>
    typeof chunk === 'string' && chunk.startsWith('Bundling asset ') ? true : (write as (...args: unknown[]) => boolean)(chunk, ...rest)) as typeof process.stderr.write);
  try {
    return build();
  } finally {
    spy.mockRestore();
  }
}

/** cdk-nag AwsSolutions findings left after acknowledgements, as `rule @ path` strings. */
export function unacknowledgedFindings(scope: IConstruct): string[] {
  const report = new AwsSolutionsChecks().validateScope(scope);
  return report.violations.flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} @ ${r.constructPath}`));
}

/** Every acknowledgement recorded under `scope`: rule id → reason. */
export function acknowledgements(scope: IConstruct): Array<{ path: string; id: string; reason: unknown }> {
  const found: Array<{ path: string; id: string; reason: unknown }> = [];
  for (const node of scope.node.findAll()) {
    for (const entry of node.node.metadata) {
      if (entry.type !== 'aws:cdk:acknowledged-rules') continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, unknown>)) found.push({ path: node.node.path, id, reason });
    }
  }
  return found;
}

export interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

/** The statements of every IAM policy attached to the role whose logical ID starts with `rolePrefix`. */
export function statementsOfRole(template: Template, rolePrefix: string): Statement[] {
  const policies = template.findResources('AWS::IAM::Policy');
  const statements: Statement[] = [];
  for (const policy of Object.values(policies)) {
    const roles = (policy.Properties.Roles as Array<{ Ref: string }>).map((r) => r.Ref);
    if (roles.some((ref) => ref.startsWith(rolePrefix))) statements.push(...(policy.Properties.PolicyDocument.Statement as Statement[]));
  }
  return statements;
}

/** Actions of a statement as a list. */
export function actionsOf(statement: Statement): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}

/** The logical ID CloudFormation gets for a construct's default child. */
export function logicalIdOf(construct: IConstruct): string {
  const child = (construct.node.defaultChild ?? construct) as CfnElement;
  return Stack.of(construct).getLogicalId(child);
}
