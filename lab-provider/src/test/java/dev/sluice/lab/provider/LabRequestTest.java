package dev.sluice.lab.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.lab.provider.LabRequest.BadRequestException;
import dev.sluice.lab.provider.LabRequest.Endpoint;
import org.junit.jupiter.api.Test;

/** Reading OpenAI request bodies: prompt tokens as the provider counts them, output caps, refusals. */
class LabRequestTest {

    private final PromptTokenCounter tokens = PromptTokenCounter.shared();

    @Test
    void gpt4oFamilyUsesO200kAndOlderModelsCl100k() {
        assertThat(tokens.encodingFor("gpt-4o-mini").getName()).isEqualTo("o200k_base");
        assertThat(tokens.encodingFor("gpt-4.1").getName()).isEqualTo("o200k_base");
        assertThat(tokens.encodingFor("gpt-4").getName()).isEqualTo("cl100k_base");
        assertThat(tokens.encodingFor("text-embedding-3-small").getName()).isEqualTo("cl100k_base");
    }

    @Test
    void chatCountsEveryMessagesTextPartsPlusFraming() {
        String body = """
                {"model":"gpt-4o","messages":[
                  {"role":"system","content":"You extract text."},
                  {"role":"user","content":[{"type":"text","text":"Page one"},
                                             {"type":"image_url","image_url":{"url":"data:..."}}]}]}""";
        LabRequest r = LabRequest.parse(Endpoint.CHAT, body, tokens);
        long expected = 3 + 4 + tokens.count("gpt-4o", "You extract text.") + 4 + tokens.count("gpt-4o", "Page one");
        assertThat(r.promptTokens()).isEqualTo(expected);
        assertThat(r.maxTokens()).isEqualTo(ProviderSimulator.NO_MAX_TOKENS);
        assertThat(r.stream()).isFalse();
    }

    @Test
    void embeddingsAcceptStringsAndTokenArraysAndProduceNoOutput() {
        LabRequest strings = LabRequest.parse(
                Endpoint.EMBEDDINGS, "{\"model\":\"text-embedding-3-small\",\"input\":[\"a\",\"b\",\"c\"]}", tokens);
        assertThat(strings.inputs()).isEqualTo(3);
        assertThat(strings.promptTokens()).isEqualTo(3);
        assertThat(strings.maxTokens()).isZero();

        LabRequest ids = LabRequest.parse(
                Endpoint.EMBEDDINGS, "{\"model\":\"text-embedding-3-small\",\"input\":[1,2,3,4]}", tokens);
        assertThat(ids.inputs()).isEqualTo(1);
        assertThat(ids.promptTokens()).isEqualTo(4);

        LabRequest idArrays = LabRequest.parse(
                Endpoint.EMBEDDINGS,
                "{\"model\":\"text-embedding-3-small\",\"input\":[[1,2],[3,4,5]],\"stream\":true}",
                tokens);
        assertThat(idArrays.inputs()).isEqualTo(2);
        assertThat(idArrays.promptTokens()).isEqualTo(5);
        assertThat(idArrays.stream()).as("embeddings never stream").isFalse();
    }

    @Test
    void responsesReadInstructionsInputAndMaxOutputTokens() {
        LabRequest r = LabRequest.parse(
                Endpoint.RESPONSES,
                "{\"model\":\"gpt-4o\",\"instructions\":\"Be brief.\",\"input\":\"hi\",\"max_output_tokens\":64,"
                        + "\"stream\":true}",
                tokens);
        assertThat(r.promptTokens()).isEqualTo(3 + 4 + tokens.count("gpt-4o", "Be brief.") + 4 + 1);
        assertThat(r.maxTokens()).isEqualTo(64);
        assertThat(r.stream()).isTrue();
    }

    @Test
    void refusesWhatOpenAiRefuses() {
        assertThatThrownBy(() -> LabRequest.parse(Endpoint.CHAT, "", tokens))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("could not parse the JSON body");
        assertThatThrownBy(() -> LabRequest.parse(Endpoint.CHAT, "[1]", tokens))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("JSON object");
        assertThatThrownBy(() -> LabRequest.parse(Endpoint.CHAT, "{\"model\":\"gpt-4o\"}", tokens))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("'messages'");
        assertThatThrownBy(() -> LabRequest.parse(
                        Endpoint.COMPLETIONS, "{\"model\":\"gpt-4o\",\"prompt\":\"x\",\"max_tokens\":\"ten\"}", tokens))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("expected an integer");
        assertThatThrownBy(() ->
                        LabRequest.parse(Endpoint.EMBEDDINGS, "{\"model\":\"m\",\"input\":{\"text\":\"x\"}}", tokens))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("'input'");
    }
}
