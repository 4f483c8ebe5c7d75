/**
 * Props are checked in the constructors, every problem reported at once, naming the prop and
 * never echoing key material; and what a construct is given is what its function's cold start reads.
 * (No function is bundled here.)
 */
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AdminBootstrap } from '../../lib/admin-bootstrap';
import { ClientRegistry } from '../../lib/client-registry';
import { RegistryApi } from '../../lib/registry-api';
import { RotatingSigningKey } from '../../lib/rotating-signing-key';
import { parsePublicBaseUrl } from '../../lambda/adapters/target-uri';
import { loadConfig } from '../../lambda/config';
import { ENV } from '../../lambda/config-env';
import { MAX_COVERED_COMPONENTS_LIMIT, MAX_KEY_SOURCE_KEEP_DAYS, MIN_LAST_USED_RECORD_INTERVAL_MS, MIN_WEB_BOT_AUTH_MAX_VALIDITY_S } from '../../lambda/core/defaults';
import { SETTINGS, SETTING_ROWS } from '../../lambda/settings';
import { SignatureAuthorizer } from '../../lib/signature-authorizer';
import { environmentSizeProblem } from '../../lib/signet-function';
import { appWithoutBundling } from './helpers';
import { nextTestKey } from '../support/test-keys';

function scope(): { stack: Stack; registry: ClientRegistry } {
  const stack = new Stack(appWithoutBundling(), 'Props');
  return { stack, registry: new ClientRegistry(stack, 'Registry') };
}

function errorOf(build: () => unknown): string {
  try {
    build();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the constructor to throw');
}

describe('SignatureAuthorizer props', () => {
  test('lists every bad prop in one error', () => {
    const { stack, registry } = scope();
    const message = errorOf(
      () =>
        new SignatureAuthorizer(stack, 'Authorizer', {
          registry,
          apiType: 'soap' as never,
          maxAge: Duration.millis(1500),
          clientCacheTtl: Duration.millis(0.5),
          lastUsedRecordInterval: Duration.millis(10),
          allowedLogSample: 1.5,
          publicBaseUrl: 'https://api.example.com/v1?stage=prod',
          roleCatalogue: { 'registry:admin': ['/registry/**'] },
          memorySizeMb: 64,
        }),
    );
    expect(message).toMatch(/^Props\/Authorizer: invalid SignatureAuthorizer props: /);
    for (const part of [
      'apiType must be http or rest; got "soap"',
      'maxAge in seconds must be a whole number >= 1; got 1.5 (1 second 500 millis)',
      'clientCacheTtl in milliseconds must be a whole number >= 0; got 0.5',
      'lastUsedRecordInterval in milliseconds must be 0 (off) or at least 1000 ms; got 10 (10 millis)',
      'allowedLogSample must be a number from 0 to 1, e.g. 0.01 for one in a hundred; got 1.5',
      'publicBaseUrl must not carry a query or a fragment',
      'roleCatalogue is not usable: Invalid role catalogue',
      'memorySizeMb must be a whole number of MB between 128 and 10240; got 64',
    ]) {
      expect(message).toContain(part);
    }
  });

  // Every prop that carries a setting is checked by its row of lambda/settings.ts: the bound and
  // the sentence are the table's, the Duration given in the row's unit.
  test('each setting prop is refused by its settings-table rule, with the table\'s bound', () => {
    const refused: Partial<Record<keyof typeof SETTINGS, unknown>> = {
      apiType: 'soap',
      publicBaseUrl: 'api.example.com/v1',
      roleCatalogue: { 'registry:admin': ['/registry/**'] },
      maxAgeS: Duration.millis(1500),
      maxSkewS: Duration.millis(250),
      maxCoveredComponents: MAX_COVERED_COMPONENTS_LIMIT + 1,
      allowLegacy: 'yes',
      profile: 'strict',
      webBotAuthMaxValidityS: MIN_WEB_BOT_AUTH_MAX_VALIDITY_S - 1,
      replayProtection: 'no',
      recordAuthFailures: 1,
      lastUsedRecordIntervalMs: Duration.millis(MIN_LAST_USED_RECORD_INTERVAL_MS - 1),
      allowedLogSample: 2,
      clientCacheTtlMs: Duration.millis(0.5),
      staleIfErrorMs: Duration.millis(0.25),
      keySourceKeepDays: MAX_KEY_SOURCE_KEEP_DAYS + 1,
    };
    const rows = SETTING_ROWS.filter((row) => row.prop !== undefined && row.key !== 'tableName' && (row.lambdas?.includes('authorizer') === true || row.key === 'apiType'));
    expect(rows.map((row) => row.key).sort()).toEqual(Object.keys(refused).sort());
    const { stack, registry } = scope();
    const props = Object.fromEntries(rows.map((row) => [row.prop, refused[row.key]]));
    const message = errorOf(() => new SignatureAuthorizer(stack, 'Authorizer', { registry, ...props }));
    // Each problem is "<prop>[ in <unit>] <the rule's own sentence>", in table order.
    const expected = rows.map((row) => {
      const value = refused[row.key];
      const asNumber = value instanceof Duration ? (row.unit === 's' ? value.toSeconds({ integral: false }) : value.toMilliseconds({ integral: false })) : value;
      let sentence = '';
      try {
        row.rule.parse(asNumber);
      } catch (error) {
        sentence = (error as Error).message;
      }
      expect(sentence).not.toBe('');
      const unit = value instanceof Duration ? ` in ${row.unit === 's' ? 'seconds' : 'milliseconds'}` : '';
      return `${row.prop}${unit} ${sentence}${value instanceof Duration ? ` (${value.toHumanString()})` : ''}`;
    });
    expect(message).toBe(`Props/Authorizer: invalid SignatureAuthorizer props: ${expected.join('; ')}.`);
    // The bounds themselves, as the table writes them.
    expect(expected).toEqual(expect.arrayContaining([
      'maxCoveredComponents must be a whole number from 4 to 64; got 65',
      'webBotAuthMaxValidityS must be a whole number from 60 to 86400; got 59',
      'staleIfError in milliseconds must be a whole number >= 0; got 0.25 (0.25 millis)',
      'lastUsedRecordInterval in milliseconds must be 0 (off) or at least 1000 ms; got 999 (999 millis)',
    ]));
  });

  test('a role catalogue too large for the Lambda environment is refused', () => {
    const { stack, registry } = scope();
    const roleCatalogue = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`partner-role-${i}`, [`* /partners/${i}/orders/**`]]));
    expect(errorOf(() => new SignatureAuthorizer(stack, 'Authorizer', { registry, roleCatalogue }))).toMatch(
      /roleCatalogue is \d+ bytes as JSON, over 3000: .*Lambda allows 4 KB/,
    );
  });

  test("a function's environment that would pass 4 KB as Lambda measures it (JSON, quotes escaped) fails the synth, naming the largest variable", () => {
    // Under the catalogue's own bound as raw JSON (3,000 bytes), but quote-dense: each `"` is `\\"` in the measured JSON.
    const roleCatalogue = Object.fromEntries(Array.from({ length: 46 }, (_, i) => [`r${i}`, ['GET /a', 'GET /b', 'GET /c', 'GET /d', 'GET /e']]));
    expect(Buffer.byteLength(JSON.stringify(roleCatalogue))).toBeLessThanOrEqual(3000);
    const { stack, registry } = scope();
    new SignatureAuthorizer(stack, 'Authorizer', { registry, roleCatalogue, publicBaseUrl: `https://api.example.com/${'v'.repeat(300)}` });
    const problems = stack.node.findAll().flatMap((construct) => construct.node.validate());
    expect(problems).toEqual([
      expect.stringMatching(/^the signet-authorizer function's environment would be about \d{4} bytes as Lambda measures it .*over the 4096 it allows, and the deploy would fail: the largest is SIGNET_ROLE_CATALOGUE \(\d{4} bytes\)/),
    ]);
    // Fewer roles and no base URL fit: the check counts what is there.
    const fits = scope();
    new SignatureAuthorizer(fits.stack, 'Authorizer', { registry: fits.registry, roleCatalogue: Object.fromEntries(Object.entries(roleCatalogue).slice(0, 30)) });
    expect(fits.stack.node.findAll().flatMap((construct) => construct.node.validate())).toEqual([]);
  });

  test('a value CloudFormation joins at deploy counts as its known parts, or as one deploy-time value when the list itself is not known', () => {
    const list = { 'Fn::Join': [',', { Ref: 'Zones' }] };
    const joined = { 'Fn::Join': ['', ['arn:aws:s3:::', { Ref: 'Bucket' }, '/*']] };
    expect(environmentSizeProblem('x', { LIST: list, JOINED: joined })).toBeUndefined();
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`V${i}`, list]));
    expect(environmentSizeProblem('x', many)).toMatch(/^the x function's environment would be about 4\d{3} bytes/);
  });

  test('a publicBaseUrl over 512 characters is refused: it travels in the environment', () => {
    expect(synthProblem(`https://api.example.com/${'v'.repeat(500)}`)).toMatch(/publicBaseUrl is 524 characters, over 512/);
  });

  /** What synth says of `publicBaseUrl`: undefined when the constructor accepts it. */
  function synthProblem(publicBaseUrl: string): string | undefined {
    const { stack, registry } = scope();
    try {
      new SignatureAuthorizer(stack, 'Authorizer', { registry, publicBaseUrl });
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }

  /** What a cold start and a request say of it: undefined when both accept it. */
  function runtimeProblem(publicBaseUrl: string): string | undefined {
    try {
      loadConfig({ [ENV.tableName]: 'signet-clients', [ENV.publicBaseUrl]: publicBaseUrl });
      parsePublicBaseUrl(publicBaseUrl);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }

  // Synth and run time read one rule (lambda/adapters/target-uri.ts): a value synth accepts never
  // makes every request answer 500 after the deploy, as https://user:pw@host/v1 did.
  test.each([
    ['https://api.example.com/v1', undefined],
    ['http://127.0.0.1:3000', undefined],
    ['https://api.example.com/v1/', undefined],
    ['api.example.com/v1', 'must be an absolute URL'],
    ['ftp://api.example.com', 'must use https (or http for local runs)'],
    ['https://api.example.com/#top', 'must not carry a query or a fragment'],
    ['https://api.example.com/v1?', 'must not carry a query or a fragment'],
    ['https://user:pw@api.example.com/v1', 'must not carry user information'],
    ['https://user@api.example.com/v1', 'must not carry user information'],
  ])('publicBaseUrl %s: synth and run time agree', (url, problem) => {
    const atSynth = synthProblem(url);
    const atRunTime = runtimeProblem(url);
    if (problem === undefined) {
      expect({ atSynth, atRunTime }).toEqual({ atSynth: undefined, atRunTime: undefined });
    } else {
      expect(atSynth).toContain(problem);
      expect(atRunTime).toContain(problem);
    }
  });
});

describe('props to environment to config', () => {
  /** The environment a construct gave `fn`, the table's name (a token) given as `signet-clients`. */
  function environmentOf(fn: lambda.IFunction): Record<string, string> {
    const { variables } = Stack.of(fn).resolve((fn.node.defaultChild as lambda.CfnFunction).environment) as { variables: Record<string, unknown> };
    return Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, typeof value === 'string' ? value : 'signet-clients']));
  }

  test('what the authorizer and the registry are given is what their cold start reads', () => {
    const { stack, registry } = scope();
    const authorizer = new SignatureAuthorizer(stack, 'Authorizer', {
      registry,
      staleIfError: Duration.minutes(5),
      maxAge: Duration.minutes(2),
      maxCoveredComponents: 20,
      replayProtection: true,
      profile: 'rfc9421',
      lastUsedRecordInterval: Duration.millis(0),
      allowedLogSample: 0.25,
      clientCacheTtl: Duration.seconds(10),
      publicBaseUrl: 'https://api.example.com/v1',
    });
    const registryApi = new RegistryApi(stack, 'RegistryApi', { registry, authorizer, httpApi: new apigwv2.HttpApi(stack, 'Api') });
    expect(loadConfig(environmentOf(authorizer.handler))).toMatchObject({
      tableName: 'signet-clients',
      staleIfErrorMs: 300_000,
      maxAgeS: 120,
      maxCoveredComponents: 20,
      replayProtection: true,
      recordAuthFailures: true,
      profile: 'rfc9421',
      lastUsedRecordIntervalMs: 0,
      allowedLogSample: 0.25,
      clientCacheTtlMs: 10_000,
      publicBaseUrl: 'https://api.example.com/v1',
    });
    expect(loadConfig(environmentOf(registryApi.handler))).toMatchObject({ clientCacheTtlMs: 10_000, publicBaseUrl: 'https://api.example.com/v1', roleCatalogue: authorizer.roleCatalogue });
  });
});

describe('RotatingSigningKey props', () => {
  test('lists every bad prop in one error', () => {
    const { stack, registry } = scope();
    const message = errorOf(
      () =>
        new RotatingSigningKey(stack, 'Key', {
          registry,
          clientId: 'not a client id',
          rotationInterval: Duration.hours(36),
          keyBits: 1024,
          clientCacheTtl: Duration.minutes(20),
          keySourceKeepDays: 0,
        }),
    );
    expect(message).toMatch(/^Props\/Key: invalid RotatingSigningKey props: /);
    expect(message).toContain('clientId must be the registry\'s clientId');
    // The settings table's rules (lambda/settings.ts), then the construct's own bound.
    expect(message).toContain('rotationInterval in days must be a whole number from 1 to 1000; got 1.5 (1 day 12 hours)');
    expect(message).toContain('keyBits must be a multiple of 8 from 2048 to 8192; got 1024');
    expect(message).toContain('clientCacheTtl must be at most 12 minutes (it is waited out inside one Lambda run); got 20 minutes');
    expect(message).toContain('keySourceKeepDays must be a whole number from 1 to 90; got 0');
  });

  test('a grace shorter than a signer keeps its key (max age, then stale-if-error) is a synth warning; the default grace is not', () => {
    const { stack, registry } = scope();
    new RotatingSigningKey(stack, 'Short', { registry, clientId: 'c_AAAAAAAAAAAAAAAAAAAAAA', grace: Duration.minutes(10) });
    new RotatingSigningKey(stack, 'Default', { registry, clientId: 'c_BBBBBBBBBBBBBBBBBBBBBB' });
    const warnings = Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('rotation-grace-short'));
    expect(warnings.map((w) => w.id)).toEqual(['/Props/Short']);
    expect(String(warnings[0].entry.data)).toContain('grace is 10 minutes: a signer keeps a key it read for up to 20 minutes while Secrets Manager cannot be read');
  });

  test("a customer managed key encrypts the secret: the rotation function may use it, and a signer in another account granted the secret may decrypt with it", () => {
    const { stack, registry } = scope();
    const encryptionKey = new kms.Key(stack, 'SigningKeys');
    const key = new RotatingSigningKey(stack, 'Key', { registry, clientId: 'c_AAAAAAAAAAAAAAAAAAAAAA', encryptionKey });
    key.secret.grantRead(new iam.AccountPrincipal('210987654321'));
    const template = Template.fromStack(stack);
    const keyRef = { 'Fn::GetAtt': [stack.getLogicalId(encryptionKey.node.defaultChild as kms.CfnKey), 'Arn'] };
    template.hasResourceProperties('AWS::SecretsManager::Secret', { KmsKeyId: keyRef });
    const rotationPolicy = Object.values(template.findResources('AWS::IAM::Policy')).find((p) => JSON.stringify(p).includes('secretsmanager:PutSecretValue'));
    expect(JSON.stringify(rotationPolicy)).toContain(JSON.stringify({ Action: ['kms:Decrypt', 'kms:Encrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*'], Effect: 'Allow', Resource: keyRef }));
    const statements = Object.values(template.findResources('AWS::KMS::Key'))[0].Properties.KeyPolicy.Statement as { Action: string | string[]; Principal: unknown; Effect: string }[];
    const forPartner = statements.filter((statement) => JSON.stringify(statement.Principal).includes(':iam::210987654321:root'));
    expect(forPartner).toEqual([expect.objectContaining({ Effect: 'Allow', Action: 'kms:Decrypt' })]);
  });

  test('a grace as long as the interval is refused', () => {
    const { stack, registry } = scope();
    expect(
      errorOf(() => new RotatingSigningKey(stack, 'Key', { registry, clientId: 'c_AAAAAAAAAAAAAAAAAAAAAA', rotationInterval: Duration.days(1), grace: Duration.hours(24) })),
    ).toContain('grace (1 day) must be shorter than rotationInterval (1 day)');
  });
});

describe('AdminBootstrap props', () => {
  const pair = nextTestKey();
  const privatePem = pair.key.export({ type: 'pkcs8', format: 'pem' }) as string;

  test('a private key is refused with a sentence that says what to do, and is never echoed', () => {
    const { stack, registry } = scope();
    const message = errorOf(() => new AdminBootstrap(stack, 'Admin', { registry, publicKey: privatePem }));
    expect(message).toContain('publicKey holds a PRIVATE key');
    expect(message).toContain('treat that private key as exposed');
    expect(message).not.toContain(pair.pkcs8Base64.slice(20, 60));
    expect(message).not.toContain('BEGIN PRIVATE KEY');
  });

  test('a headerless Base64 private key (private.pkcs8.b64) is refused too', () => {
    const { stack, registry } = scope();
    const message = errorOf(() => new AdminBootstrap(stack, 'Admin', { registry, publicKey: pair.pkcs8Base64 }));
    expect(message).toContain('publicKey holds a PRIVATE key');
    expect(message).not.toContain(pair.pkcs8Base64.slice(0, 40));
  });

  test('garbage and bad allow-list entries are reported together', () => {
    const { stack, registry } = scope();
    const message = errorOf(
      () => new AdminBootstrap(stack, 'Admin', { registry, publicKey: 'hello', networkWhitelist: ['10.0.0.0/8', 'intranet'], clientName: ' ', keySourceKeepDays: 91 }),
    );
    expect(message).toMatch(/^Props\/Admin: invalid admin bootstrap: /);
    expect(message).toContain('publicKey is not usable (invalid_public_key)');
    expect(message).toContain('networkWhitelist entry "intranet" is not an IPv4/IPv6 address or CIDR');
    expect(message).toContain('clientName must be 1-200 characters');
    expect(message).toContain('keySourceKeepDays must be a whole number from 1 to 90; got 91');
  });

  test('a small RSA key is refused with its reason', () => {
    const { stack, registry } = scope();
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const message = errorOf(() => new AdminBootstrap(stack, 'Admin', { registry, publicKey: small }));
    expect(message).toContain('publicKey is not usable (key_too_small)');
  });
});

describe('each setting prop is declared once', () => {
  // A construct that passes a setting on takes it with Pick<> from the construct that declares it,
  // so its sentence and its default are written in one place. Two props stay the stack's own:
  // its role catalogue has a default of its own (the demo role), and its log retention applies to
  // every log group it makes, the API's access logs included.
  const STACK_OWN = new Set(['roleCatalogue', 'logRetention']);

  test('no prop that carries a setting is declared in two constructs of lib/', () => {
    const libDir = path.join(__dirname, '../../lib');
    const sources = fs.readdirSync(libDir).filter((name) => name.endsWith('.ts')).map((name) => ({ name, text: fs.readFileSync(path.join(libDir, name), 'utf8') }));
    const declaredTwice: string[] = [];
    for (const row of SETTING_ROWS) {
      if (row.prop === undefined) continue;
      const declaration = new RegExp(`^\\s*readonly ${row.prop}\\??:`, 'm');
      const files = sources.filter((source) => declaration.test(source.text) && !(source.name === 'signet-stack.ts' && STACK_OWN.has(row.prop!))).map((source) => source.name);
      if (files.length > 1) declaredTwice.push(`${row.prop}: ${files.join(', ')}`);
    }
    expect(declaredTwice).toEqual([]);
  });
});
