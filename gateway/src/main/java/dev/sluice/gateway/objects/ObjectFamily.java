package dev.sluice.gateway.objects;

/**
 * The provider objects that live in the account every tenant shares, by the path they live
 * under ({@code /v1/<path>/{id}...}) and the name OpenAI's errors give them.
 */
public enum ObjectFamily {
    FILES("files", "File"),
    BATCHES("batches", "Batch"),
    RESPONSES("responses", "Response"),
    CHAT_COMPLETIONS("chat/completions", "ChatCompletion"),
    VECTOR_STORES("vector_stores", "VectorStore"),
    ASSISTANTS("assistants", "Assistant"),
    THREADS("threads", "Thread"),
    FINE_TUNING_JOBS("fine_tuning/jobs", "FineTuningJob"),
    UPLOADS("uploads", "Upload"),
    CONVERSATIONS("conversations", "Conversation"),
    CONTAINERS("containers", "Container"),
    EVALS("evals", "Eval");

    private final String path;
    private final String objectName;

    ObjectFamily(String path, String objectName) {
        this.path = path;
        this.objectName = objectName;
    }

    /** Below {@code /v1/}: {@code files}, {@code fine_tuning/jobs}. */
    public String path() {
        return path;
    }

    /** As OpenAI's 404 names it: "No such File object: file-abc". */
    public String objectName() {
        return objectName;
    }
}
