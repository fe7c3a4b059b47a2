package dev.sluice.gateway.objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.sluice.gateway.objects.ObjectRequest.Action;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class ObjectRulesTest {
    static JsonNode json(String s) {
        return ObjectJson.JSON.readTree(s);
    }

    @Test
    void aPathNamesItsTopLevelObject() {
        assertThat(ObjectRules.classify("GET", "/v1/files/file-abc/content"))
                .isEqualTo(new ObjectRequest(ObjectFamily.FILES, Action.OBJECT, "file-abc", null));
        assertThat(ObjectRules.classify("DELETE", "/v1/files/file-abc"))
                .isEqualTo(new ObjectRequest(ObjectFamily.FILES, Action.OBJECT, "file-abc", null));
        assertThat(ObjectRules.classify("GET", "/v1/threads/thread_1/messages/msg_2"))
                .isEqualTo(new ObjectRequest(ObjectFamily.THREADS, Action.OBJECT, "thread_1", null));
        assertThat(ObjectRules.classify("GET", "/v1/chat/completions/chatcmpl-1/messages"))
                .isEqualTo(new ObjectRequest(ObjectFamily.CHAT_COMPLETIONS, Action.OBJECT, "chatcmpl-1", null));
        assertThat(ObjectRules.classify("POST", "/v1/fine_tuning/jobs/ftjob-1/cancel"))
                .isEqualTo(new ObjectRequest(ObjectFamily.FINE_TUNING_JOBS, Action.OBJECT, "ftjob-1", null));
        assertThat(ObjectRules.classify("GET", "/v1/responses/resp_1/input_items")
                        .id())
                .isEqualTo("resp_1");
    }

    @Test
    void theFamilyItselfIsCreatedOrListed() {
        assertThat(ObjectRules.classify("POST", "/v1/files"))
                .isEqualTo(new ObjectRequest(ObjectFamily.FILES, Action.CREATE, null, "id"));
        assertThat(ObjectRules.classify("GET", "/v1/batches"))
                .isEqualTo(new ObjectRequest(ObjectFamily.BATCHES, Action.LIST, null, null));
        assertThat(ObjectRules.classify("POST", "/v1/chat/completions").action())
                .isEqualTo(Action.CREATE);
        assertThat(ObjectRules.classify("POST", "/v1/threads/runs"))
                .isEqualTo(new ObjectRequest(ObjectFamily.THREADS, Action.CREATE, null, "thread_id"));
        assertThat(ObjectRules.classify("DELETE", "/v1/files")).isNull();
    }

    @Test
    void pathsThatNameNoObjectAreLeftAlone() {
        assertThat(ObjectRules.classify("POST", "/v1/embeddings")).isNull();
        assertThat(ObjectRules.classify("POST", "/v1/completions")).isNull();
        assertThat(ObjectRules.classify("GET", "/v1/models/gpt-4o")).isNull();
        assertThat(ObjectRules.classify("POST", "/v1/responses/input_tokens")).isNull();
        assertThat(ObjectRules.classify("GET", "/v1/fine_tuning/checkpoints/x/permissions"))
                .isNull();
    }

    @Test
    void aBodysReferencesAreFoundWhereverTheyAreExceptInMetadata() {
        JsonNode body = json("""
                {"input_file_id":"file-1","previous_response_id":"resp_1","conversation":{"id":"conv_1"},
                 "tools":[{"type":"file_search","vector_store_ids":["vs_1","vs_2"]}],
                 "tool_resources":{"code_interpreter":{"file_ids":["file-2"]}},
                 "messages":[{"content":[{"type":"file","file":{"file_id":"file-3"}}]}],
                 "assistant_id":"asst_1","training_file":"file-4","validation_file":"file-5",
                 "metadata":{"file_id":"not-an-object"},
                 "parameters":{"properties":{"file_id":{"type":"string"}}}}""");
        assertThat(ObjectRules.references(body))
                .extracting(ObjectRules.Reference::id)
                .containsExactlyInAnyOrder(
                        "file-1", "resp_1", "conv_1", "vs_1", "vs_2", "file-2", "file-3", "asst_1", "file-4", "file-5");
        assertThat(ObjectRules.references(body))
                .filteredOn(r -> r.id().equals("vs_2"))
                .extracting(ObjectRules.Reference::field, ObjectRules.Reference::objectName)
                .containsExactly(tuple("tools[0].vector_store_ids[1]", "VectorStore"));
        assertThat(ObjectRules.references(json("{\"conversation\":\"conv_9\"}")))
                .extracting(ObjectRules.Reference::id)
                .containsExactly("conv_9");
    }

    @Test
    void aBodyNamingNothingIsNotParsedAgain() {
        assertThat(ObjectRules.mayNameObjects(
                        "{\"model\":\"gpt-4o\",\"input\":\"hi\"}".getBytes(StandardCharsets.UTF_8)))
                .isFalse();
        assertThat(ObjectRules.mayNameObjects("{\"previous_response_id\":\"r\"}".getBytes(StandardCharsets.UTF_8)))
                .isTrue();
        assertThat(ObjectRules.mayNameObjects("{\"store\":true}".getBytes(StandardCharsets.UTF_8)))
                .isTrue();
        assertThat(ObjectRules.mayNameObjects("{\"training_file\":\"f\"}".getBytes(StandardCharsets.UTF_8)))
                .isTrue();
        assertThat(ObjectRules.mayNameObjects("{\"conversation\":\"c\"}".getBytes(StandardCharsets.UTF_8)))
                .isTrue();
        // A key spelled with an escape is the same key to the parser: it cannot slip past the scan.
        assertThat(ObjectRules.mayNameObjects(
                        "{\"previous_response\\u005fid\":\"r\"}".getBytes(StandardCharsets.UTF_8)))
                .isTrue();
        // Words in a prompt are not keys: the body is not parsed again.
        assertThat(ObjectRules.mayNameObjects(
                        "{\"input\":\"read the file and the conversation log\"}".getBytes(StandardCharsets.UTF_8)))
                .isFalse();
    }

    @Test
    void onlyCreatesThatCanBeReadBackAreClaimed() {
        assertThat(ObjectRules.stored(ObjectFamily.CHAT_COMPLETIONS, null)).isFalse();
        assertThat(ObjectRules.stored(ObjectFamily.CHAT_COMPLETIONS, json("{\"store\":true}")))
                .isTrue();
        assertThat(ObjectRules.stored(ObjectFamily.RESPONSES, null)).isTrue();
        assertThat(ObjectRules.stored(ObjectFamily.RESPONSES, json("{\"store\":false}")))
                .isFalse();
        assertThat(ObjectRules.stored(ObjectFamily.FILES, null)).isTrue();
    }

    @Test
    void aListPageKeepsOnlyTheCallersObjectsAndStaysCoherent() {
        JsonNode page = json("""
                {"object":"list","data":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}],"first_id":"a","last_id":"d","has_more":true}""");
        assertThat(ObjectRules.pageIds(page)).containsExactly("a", "b", "c", "d");
        JsonNode own = ObjectRules.ownPage(page, Set.of("b", "c")::contains);
        assertThat(own.toString())
                .isEqualTo(
                        "{\"object\":\"list\",\"data\":[{\"id\":\"b\"},{\"id\":\"c\"}],\"first_id\":\"b\",\"last_id\":\"c\",\"has_more\":true}");
        assertThat(ObjectRules.ownPage(page, id -> false).toString())
                .isEqualTo("{\"object\":\"list\",\"data\":[],\"first_id\":null,\"last_id\":null,\"has_more\":true}");
        assertThat(ObjectRules.ownPage(json("{\"object\":\"list\",\"data\":[{\"id\":\"a\"}]}"), id -> true)
                        .has("first_id"))
                .isFalse();
    }

    @Test
    void anAnswerOfTheWrongShapeIsRefused() {
        assertThatThrownBy(() -> ObjectRules.pageIds(json("{\"object\":\"list\"}")))
                .isInstanceOf(ObjectRules.UnexpectedAnswer.class);
        assertThatThrownBy(() -> ObjectRules.pageIds(json("{\"data\":[{\"name\":\"x\"}]}")))
                .isInstanceOf(ObjectRules.UnexpectedAnswer.class);
        ObjectRequest create = ObjectRules.classify("POST", "/v1/files");
        assertThatThrownBy(() -> ObjectRules.createdId(create, json("{\"object\":\"file\"}")))
                .isInstanceOf(ObjectRules.UnexpectedAnswer.class);
        assertThat(ObjectRules.createdId(create, json("{\"id\":\"file-1\"}"))).isEqualTo("file-1");
    }

    @Test
    void idsTheProviderMadeForAnOwnedObjectAreFound() {
        assertThat(ObjectRules.revealedIds(
                        ObjectFamily.BATCHES,
                        json("{\"id\":\"b\",\"output_file_id\":\"file-o\",\"error_file_id\":null}")))
                .containsExactly("file-o");
        assertThat(ObjectRules.revealedIds(ObjectFamily.FINE_TUNING_JOBS, json("{\"result_files\":[\"file-r\"]}")))
                .containsExactly("file-r");
        assertThat(ObjectRules.revealedIds(ObjectFamily.UPLOADS, json("{\"file\":{\"id\":\"file-u\"}}")))
                .containsExactly("file-u");
        assertThat(ObjectRules.revealedIds(ObjectFamily.FILES, json("{\"output_file_id\":\"x\"}")))
                .isEmpty();
    }

    @Test
    void aStreamsIdIsItsFirstEventsWhereverTheApiPutsIt() {
        assertThat(ObjectRules.streamedId(json("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\"}")))
                .isEqualTo("chatcmpl-1");
        assertThat(ObjectRules.streamedId(json("{\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\"}}")))
                .isEqualTo("resp_1");
        assertThat(ObjectRules.streamedId(json("{\"type\":\"x\"}"))).isNull();
    }

    @Test
    void theScannerHoldsBytesOnlyUntilTheIdIsSeen() {
        StreamIdScanner s = new StreamIdScanner();
        assertThat(s.feed("event: response.created\ndata: {\"type\":\"response.cre".getBytes(StandardCharsets.UTF_8)))
                .isNull();
        assertThat(s.feed("ated\",\"response\":{\"id\":\"resp_7\"}}\n\n".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo("resp_7");
        assertThat(new String(s.release(), StandardCharsets.UTF_8))
                .isEqualTo(
                        "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_7\"}}\n\n");
        assertThat(s.found()).isTrue();
    }

    @Test
    void aRecordSurvivesItsEncoding() {
        ObjectRecord plain = ObjectRecord.ownedBy("t-1");
        ObjectRecord batch = new ObjectRecord("t-2", new BatchFileEstimate("gpt-4o-mini", 10, 20, 3));
        ObjectRecord tabbed = new ObjectRecord("t-3", new BatchFileEstimate("odd\tmodel", 1, 2, 3));
        assertThat(ObjectRecord.decode(plain.encode())).isEqualTo(plain);
        assertThat(ObjectRecord.decode(batch.encode())).isEqualTo(batch);
        assertThat(ObjectRecord.decode(tabbed.encode())).isEqualTo(tabbed);
        assertThatThrownBy(() -> ObjectRecord.decode("garbage")).isInstanceOf(IllegalArgumentException.class);
    }
}
