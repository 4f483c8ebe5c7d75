/*
 * Starts Amazon DynamoDB Local listening on 127.0.0.1 ONLY.
 *
 * Why this file exists: DynamoDB Local's own entry point (`java -jar DynamoDBLocal.jar`, class
 * ServerRunner) builds its Jetty server with `new Server(port)`, which listens on every interface,
 * and it has no option to choose the host. DynamoDB Local accepts any credentials, so anyone who
 * can reach that port can write Signet's client table, e.g. add a client with `registry:admin`
 * and their own key. This launcher builds the same server from DynamoDB
 * Local's public classes, exactly as ServerRunner.createServer does (CommandLineInput ->
 * LocalDynamoDBRequestHandler -> LocalDynamoDBServerHandler inside a ContextHandler), but gives
 * Jetty a single connector bound to 127.0.0.1.
 *
 * It also answers only requests whose Host header is a loopback name with its port
 * (127.0.0.1:<port>, localhost:<port>, [::1]:<port>); any other Host gets 403
 * AccessDeniedException. Binding loopback keeps other machines out, but a web page in the
 * developer's browser could still reach 127.0.0.1 by resolving its own name there (DNS
 * rebinding); its requests carry its own name as Host. (DynamoDB Local sends no CORS
 * Access-Control-Allow-Origin unless -cors is given, and it is not, so ordinary cross-origin
 * pages are already stopped by the browser.)
 *
 * Binding loopback does not keep out the other users of this machine, though, and DynamoDB Local
 * accepts any credentials. Given an access key id in the environment variable
 * SIGNET_DYNAMODB_LOCAL_ACCESS_KEY_ID (the environment, not an argument: other users can read a
 * process's arguments, not its environment), it answers only requests signed with that key id
 * (the `Credential=<id>/` of their SigV4 Authorization header) and refuses any other with 403
 * UnrecognizedClientException. `npm start` gives the key id of its home's credentials
 * (secrets-manager-credentials.json, mode 0600), so only this user's tools reach the table. The
 * signature itself is not checked: on loopback nobody but root can read another's requests, so
 * the key id, random and known only to this user, is what keeps others out.
 *
 * Telemetry: DynamoDB Local only sends telemetry once ServerRunner configures it; this launcher
 * never does, so it is off whatever the arguments say (local/dynamodb-local.ts passes
 * -disableTelemetry as well).
 *
 * Arguments: DynamoDB Local's own (-port, -inMemory, -dbPath, -sharedDb, -disableTelemetry, ...),
 * parsed by its own CommandLineInput, except that `-port 0` (which that parser refuses) lets the
 * system pick a free port. Prints `listening on 127.0.0.1:<port>` once bound; exits 1
 * with a message on stderr when the arguments are wrong or the port cannot be bound. SIGTERM
 * stops Jetty and closes the database (a JVM shutdown hook).
 *
 * local/dynamodb-local.ts compiles this file once per content into node_modules/.cache/ (javac
 * --release 17) and runs the class with DynamoDB Local's jar and libraries on the classpath.
 */
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.util.Callback;
import software.amazon.dynamodb.services.local.main.CommandLineInput;
import software.amazon.dynamodb.services.local.server.LocalDynamoDBRequestHandler;
import software.amazon.dynamodb.services.local.server.LocalDynamoDBServerHandler;

public final class LoopbackLauncher {
    /** The only address the server listens on. */
    static final String HOST = "127.0.0.1";

    public static void main(String[] args) throws Exception {
        // The same quiet logging ServerRunner sets up before it starts Jetty.
        System.setProperty("org.eclipse.jetty.util.log.announce", "false");
        System.setProperty("org.eclipse.jetty.LEVEL", "WARN");
        java.util.logging.Logger.getLogger("com.almworks.sqlite4java").setLevel(java.util.logging.Level.WARNING);

        // "-port 0": listen on a port the system picks, atomically, instead of one found free a moment
        // earlier that another process may take meanwhile. DynamoDB Local's own parser refuses 0, so it
        // is given a placeholder; the connector gets 0 and the port it got is printed below.
        boolean anyPort = false;
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("-port") && args[i + 1].equals("0")) {
                args[i + 1] = "8000";
                anyPort = true;
            }
        }
        CommandLineInput cli = new CommandLineInput(args);
        if (!cli.init()) {
            System.err.println("LoopbackLauncher: DynamoDB Local did not accept the arguments " + String.join(" ", args));
            System.exit(1);
        }

        LocalDynamoDBServerHandler handler = new LocalDynamoDBServerHandler(
                new LocalDynamoDBRequestHandler(0, cli.isInMemory(), cli.getDbPath(), cli.getSharedDb(), cli.shouldDelayTransientStatuses()),
                cli.getCorsParams());
        ContextHandler context = new ContextHandler();
        context.setHandler(handler);

        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost(HOST);
        connector.setPort(anyPort ? 0 : cli.getPort());
        server.addConnector(connector);
        String accessKeyId = System.getenv("SIGNET_DYNAMODB_LOCAL_ACCESS_KEY_ID");
        server.setHandler(new LoopbackHostOnly(new ContextHandlerCollection(context), connector,
                accessKeyId == null || accessKeyId.isEmpty() ? null : accessKeyId));

        try {
            server.start();
        } catch (Exception e) {
            System.err.println("LoopbackLauncher: could not listen on " + HOST + ":" + (anyPort ? 0 : cli.getPort()) + ": " + e);
            handler.close();
            System.exit(1);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.stop();
            } catch (Exception e) {
                System.err.println("LoopbackLauncher: stopping Jetty failed: " + e);
            }
            handler.close();
        }, "dynamodb-local-shutdown"));
        System.out.println("listening on " + HOST + ":" + connector.getLocalPort());
        server.join();
    }

    /**
     * Passes on only requests addressed to a loopback name with the connector's port and, when an
     * access key id is set, signed with it.
     */
    static final class LoopbackHostOnly extends Handler.Wrapper {
        private final ServerConnector connector;
        private final byte[] accessKeyId;

        LoopbackHostOnly(Handler handler, ServerConnector connector, String accessKeyId) {
            super(handler);
            this.connector = connector;
            this.accessKeyId = accessKeyId == null ? null : accessKeyId.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            String host = request.getHeaders().get(HttpHeader.HOST);
            String port = ":" + connector.getLocalPort();
            String name = host == null ? "" : host.toLowerCase(Locale.ROOT);
            if (!(name.equals(HOST + port) || name.equals("localhost" + port) || name.equals("[::1]" + port))) {
                String message = "DynamoDB Local (Signet's loopback launcher) answers only requests addressed to "
                        + HOST + port + ", localhost" + port + " or [::1]" + port
                        + "; call it through its endpoint URL (a web page that resolves its own name to 127.0.0.1 is refused).";
                return refuse(response, callback, "AccessDeniedException", message);
            }
            if (accessKeyId != null && !signedWithTheKeyId(request.getHeaders().get(HttpHeader.AUTHORIZATION))) {
                String message = "DynamoDB Local (Signet's loopback launcher) answers only requests signed with the access key id of "
                        + "the credentials npm start keeps in $SIGNET_HOME/secrets-manager-credentials.json.";
                return refuse(response, callback, "UnrecognizedClientException", message);
            }
            return super.handle(request, response, callback);
        }

        /** Whether a SigV4 Authorization header names this launcher's access key id (`Credential=<id>/...`). */
        private boolean signedWithTheKeyId(String authorization) {
            if (authorization == null) return false;
            int start = authorization.indexOf("Credential=");
            if (start < 0) return false;
            start += "Credential=".length();
            int end = authorization.indexOf('/', start);
            if (end < 0) return false;
            byte[] given = authorization.substring(start, end).getBytes(StandardCharsets.UTF_8);
            return MessageDigest.isEqual(given, accessKeyId);
        }

        private static boolean refuse(Response response, Callback callback, String type, String message) {
            String body = "{\"__type\":\"com.amazonaws.dynamodb.v20120810#" + type + "\",\"message\":\"" + message + "\"}";
            response.setStatus(403);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/x-amz-json-1.0");
            response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
            return true;
        }
    }
}
