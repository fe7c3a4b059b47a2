package dev.sluice.lab.scenario;

/**
 * Seed 000's page: one chat call of about 600 prompt tokens with {@code max_tokens} 200, so the
 * provider counts about 800 tokens against its minute. Shared by the scenarios and the tests that
 * send seed crowds through a gateway.
 */
public final class PageText {
    /** About ten tokens; 59 of them and a heading make a ~600-token page. */
    public static final String SENTENCE = "The quick brown fox jumps over the lazy dog. ";

    public static final String MODEL = "gpt-4o-mini";
    public static final int MAX_TOKENS = 200;

    private PageText() {}

    /** The page's text: its place in the book first, so no two pages are the same call. */
    public static String text(String author, int book, int page) {
        return "Page " + page + " of book " + book + " by " + author + ". " + SENTENCE.repeat(59);
    }

    /** The chat completion request for one page. */
    public static String chatBody(String author, int book, int page) {
        return chatBody(MODEL, author, book, page);
    }

    /** The same page for another model. */
    public static String chatBody(String model, String author, int book, int page) {
        return "{\"model\":\"" + model + "\",\"max_tokens\":" + MAX_TOKENS
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + text(author, book, page) + "\"}]}";
    }
}
