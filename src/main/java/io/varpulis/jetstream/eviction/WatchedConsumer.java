package io.varpulis.jetstream.eviction;

/**
 * A durable consumer whose unconsumed events are watched for eviction: a route edge's
 * (every edge of every group, placed or not, on a coordinator) or a service's listener.
 *
 * @param stream the stream it reads
 * @param durable its durable name, the {@code consumer} tag
 * @param filterSubject the subject it filters on, counted when its events are evicted
 * @param unit what consumes it, the {@code unit} tag: the pipeline, or the listener (its
 * durable)
 * @param runs whether a process runs it now (its pipeline is placed; a listener always):
 * events delivered and never acked are counted when the stream drops them only where
 * nothing runs it, since a live process applies or parks what it holds
 */
public record WatchedConsumer(String stream, String durable, String filterSubject, String unit, boolean runs) {
}
