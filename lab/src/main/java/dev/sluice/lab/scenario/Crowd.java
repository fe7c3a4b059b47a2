package dev.sluice.lab.scenario;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Seed 000's users: each uploads a book, waits until every page has its answer (or its
 * refusal), looks at it for {@code think}, and uploads the next, for as long as {@code keepGoing}
 * says (the first book always goes). Case 1 sends a book's pages one after another; every other case sends them all at once
 * (Promise.all), with nothing on the client's side making them wait.
 */
final class Crowd {
    private final ScaledClock clock;
    private final CaseRecorder recorder;
    private final PageSender sender;
    private final int pagesPerBook;
    private final Duration thinkReal;
    private final boolean oneAfterAnother;
    private final String model;

    Crowd(
            ScaledClock clock,
            CaseRecorder recorder,
            PageSender sender,
            int pagesPerBook,
            Duration think,
            boolean oneAfterAnother,
            String model) {
        this.model = model;
        this.clock = clock;
        this.recorder = recorder;
        this.sender = sender;
        this.pagesPerBook = pagesPerBook;
        this.thinkReal = clock.real(think);
        this.oneAfterAnother = oneAfterAnother;
    }

    /** User {@code user}'s books, one after another, while {@code keepGoing}. */
    Mono<Void> user(int user, BooleanSupplier keepGoing) {
        return books(user, 1, keepGoing);
    }

    private Mono<Void> books(int user, int book, BooleanSupplier keepGoing) {
        return Mono.defer(() -> {
            // A user who joined uploads at least one book, however late the machine got it going.
            if (book > 1 && !keepGoing.getAsBoolean()) return Mono.empty();
            return book(user, book).then(Mono.delay(thinkReal)).then(books(user, book + 1, keepGoing));
        });
    }

    private Mono<Void> book(int user, int book) {
        CaseRecorder.Book b = recorder.startBook(user, pagesPerBook);
        Flux<Integer> pages = Flux.range(1, pagesPerBook);
        // flatMap's concurrency is the book's size: a smaller one would be a queue of our own.
        return (oneAfterAnother
                        ? pages.concatMap(p -> page(b, user, book, p))
                        : pages.flatMap(p -> page(b, user, book, p), pagesPerBook))
                .then();
    }

    private Mono<Void> page(CaseRecorder.Book b, int user, int book, int page) {
        return Mono.defer(() -> {
            long sent = clock.millis();
            recorder.pageSent();
            return sender.send(user, PageText.chatBody(model, "user-" + user, book, page))
                    .onErrorResume(
                            e -> { // a refused connection, a reset: the page is lost, and counted
                                recorder.unexpected(clock.millis());
                                return Mono.just(PageSender.FAILED);
                            })
                    .doOnNext(billed -> recorder.pageDone(b, billed >= 0, sent, clock.millis(), billed))
                    .then();
        });
    }
}
