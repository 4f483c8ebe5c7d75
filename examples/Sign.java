/*
 * Signet request signing in Java (11 or newer), with the JDK only: SHA256withRSA.
 *
 *   java examples/Sign.java [--send] KEY_FILE CLIENT_ID METHOD URL [BODY_FILE]
 *
 * KEY_FILE is your private key: the Base64 PKCS#8 file you were given (private.pkcs8.b64) or a
 * PKCS#8 PEM file. URL is the exact URL you call (scheme, host, port, path, query). BODY_FILE
 * holds the exact body bytes, if any.
 *
 * Without --send it prints the headers to add, one "Name: value" per line. With --send it sends
 * the request (java.net.http) and prints "HTTP <status>" and the response body; exit 0 on a 2xx.
 *
 * In your own code, call Sign.signRequest(...) and add the headers it returns to your request.
 * Two classic mistakes this avoids: DateTimeFormatter.RFC_1123_DATE_TIME does not zero-pad the
 * day (IMF-fixdate does), and java.net.http refuses a Date header unless
 * jdk.httpclient.allowRestrictedHeaders includes "date".
 */
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

public class Sign {
    /** IMF-fixdate (RFC 9110 §5.6.7): "Tue, 07 Jun 2014 20:51:35 GMT". */
    private static final DateTimeFormatter IMF_FIXDATE =
        DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    /** Headerless Base64 PKCS#8 (private.pkcs8.b64), or a PKCS#8 PEM file. */
    public static PrivateKey loadPrivateKey(Path path) throws Exception {
        String text = Files.readString(path, StandardCharsets.US_ASCII);
        String base64 = text.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        byte[] der = Base64.getDecoder().decode(base64);
        return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));
    }

    /** The headers that sign one request: Content-Digest (with a body), Date, Signature-Input, Signature. */
    public static Map<String, String> signRequest(PrivateKey key, String clientId, String method, String url, byte[] body, long created)
            throws Exception {
        Map<String, String> headers = new LinkedHashMap<>();
        List<String> components = new ArrayList<>(List.of("\"@method\"", "\"@target-uri\""));
        List<String> lines = new ArrayList<>();
        lines.add("\"@method\": " + method.toUpperCase(Locale.ROOT));
        lines.add("\"@target-uri\": " + url);
        if (body.length > 0) {
            byte[] sha256 = MessageDigest.getInstance("SHA-256").digest(body);
            String digest = "sha-256=:" + Base64.getEncoder().encodeToString(sha256) + ":";
            headers.put("Content-Digest", digest);
            components.add("\"content-digest\"");
            lines.add("\"content-digest\": " + digest);
        }
        String date = IMF_FIXDATE.format(Instant.ofEpochSecond(created));
        headers.put("Date", date);
        components.add("\"date\"");
        lines.add("\"date\": " + date);
        String params = "(" + String.join(" ", components) + ");created=" + created + ";keyid=\"" + clientId + "\";alg=\"rsa-v1_5-sha256\"";
        lines.add("\"@signature-params\": " + params);
        String base = String.join("\n", lines); // LF line ends, no LF after the last line

        Signature rsa = Signature.getInstance("SHA256withRSA");
        rsa.initSign(key);
        rsa.update(base.getBytes(StandardCharsets.UTF_8));
        headers.put("Signature-Input", "sig=" + params);
        headers.put("Signature", "sig=:" + Base64.getEncoder().encodeToString(rsa.sign()) + ":");
        return headers;
    }

    /** One line on stderr, exit code 1: a wrong key file is not a stack trace. */
    private static void fail(String message) {
        System.err.println("error: " + message);
        System.exit(1);
    }

    public static void main(String[] argv) throws Exception {
        // Must be set before java.net.http is first used.
        System.setProperty("jdk.httpclient.allowRestrictedHeaders", "date");
        boolean send = argv.length > 0 && argv[0].equals("--send");
        String[] args = send ? java.util.Arrays.copyOfRange(argv, 1, argv.length) : argv;
        if (args.length != 4 && args.length != 5) {
            System.err.println("usage: java Sign.java [--send] KEY_FILE CLIENT_ID METHOD URL [BODY_FILE]");
            System.exit(2);
        }
        String method = args[2].toUpperCase(Locale.ROOT);
        PrivateKey key = null;
        try {
            key = loadPrivateKey(Path.of(args[0]));
        } catch (java.nio.file.NoSuchFileException e) {
            fail("KEY_FILE " + args[0] + " cannot be used as the private key: no such file");
        } catch (Exception e) {
            boolean isPublic = Files.isReadable(Path.of(args[0])) && Files.readString(Path.of(args[0]), StandardCharsets.ISO_8859_1).contains("PUBLIC KEY-----");
            fail("KEY_FILE " + args[0] + " cannot be used as the private key: "
                + (isPublic ? "it holds a PUBLIC key; give your private key (private.pkcs8.b64 or private.pem)" : "it is not a PKCS#8 RSA private key (Base64 or PEM)"));
        }
        byte[] body = new byte[0];
        try {
            if (args.length == 5) body = Files.readAllBytes(Path.of(args[4]));
        } catch (java.io.IOException e) {
            fail("BODY_FILE " + args[4] + " cannot be read: " + e.getClass().getSimpleName());
        }
        Map<String, String> headers = signRequest(key, args[1], method, args[3], body, Instant.now().getEpochSecond());
        if (!send) {
            headers.forEach((name, value) -> System.out.println(name + ": " + value));
            return;
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(args[3]))
            .method(method, body.length > 0 ? HttpRequest.BodyPublishers.ofByteArray(body) : HttpRequest.BodyPublishers.noBody());
        headers.forEach(request::header);
        if (body.length > 0) request.header("Content-Type", "application/json");
        HttpResponse<String> response = HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
        System.out.println("HTTP " + response.statusCode());
        System.out.println(response.body());
        System.exit(response.statusCode() >= 200 && response.statusCode() < 300 ? 0 : 1);
    }
}
