package io.varpulis.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import io.nats.client.api.KeyValueWatcher;
import io.varpulis.pipeline.PipelineGroupSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** The JetStream store: {@code create} at revision 0, so that of two coordinators declaring a name, one wins. */
final class JetStreamGroupStore implements GroupStore {

    private static final Logger log = LoggerFactory.getLogger(GroupStore.class);
    private static final Duration INITIAL_LOAD = Duration.ofSeconds(30);

    private final KeyValue kv;
    private final ObjectMapper mapper;
    private final String cluster;
    private final String prefix;
    private final Map<String, Set<String>> others = new ConcurrentHashMap<>();

    JetStreamGroupStore(KeyValue kv, ObjectMapper mapper, String cluster) {
        this.kv = kv;
        this.mapper = mapper;
        this.cluster = cluster;
        this.prefix = GroupStore.key(cluster, "");
    }

    @Override
    public AutoCloseable watch(Listener listener) {
        CountDownLatch loaded = new CountDownLatch(1);
        try {
            AutoCloseable watch = kv.watchAll(new KeyValueWatcher() {
                @Override
                public void watch(KeyValueEntry entry) {
                    onEntry(entry, listener);
                }

                @Override
                public void endOfData() {
                    loaded.countDown();
                }
            });
            if (!loaded.await(INITIAL_LOAD.toMillis(), TimeUnit.MILLISECONDS)) {
                watch.close();
                throw new IllegalStateException("the pipeline groups in " + BUCKET + " did not arrive within "
                        + INITIAL_LOAD.toSeconds() + " s");
            }
            return watch;
        } catch (IOException | JetStreamApiException e) {
            throw new IllegalStateException("cannot watch the pipeline groups in " + BUCKET + ": "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the pipeline groups", e);
        } catch (IllegalStateException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot watch the pipeline groups: " + e.getMessage(), e);
        }
    }

    private void onEntry(KeyValueEntry entry, Listener listener) {
        String key = entry.getKey();
        boolean put = entry.getOperation() == KeyValueOperation.PUT;
        if (!key.startsWith(prefix)) {
            int dot = key.indexOf('.');
            String cluster = dot < 0 ? "" : key.substring(0, dot);
            String name = key.substring(dot + 1);
            if (put) {
                others.computeIfAbsent(cluster, c -> ConcurrentHashMap.newKeySet()).add(name);
            } else {
                others.computeIfPresent(cluster, (c, names) -> {
                    names.remove(name);
                    return names.isEmpty() ? null : names;
                });
            }
            return;
        }
        String name = key.substring(prefix.length());
        if (!put) {
            listener.removed(name);
            return;
        }
        try {
            listener.stored(mapper.readValue(entry.getValue(), PipelineGroupSpec.class));
        } catch (IOException | RuntimeException e) {
            log.warn("pipeline group {} in {} is not readable and is ignored: {}", name, BUCKET, e.toString());
        }
    }

    @Override
    public void create(PipelineGroupSpec group) {
        try {
            kv.create(GroupStore.key(cluster, group.name()), mapper.writeValueAsBytes(group));
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == KeyValueLease.WRONG_LAST_SEQUENCE) {
                throw GroupStore.exists(group.name());
            }
            throw new IllegalStateException("cannot store pipeline group " + group.name() + ": "
                    + e.getMessage(), e);
        } catch (IOException e) {
            // No answer or no responders: the bucket's stream electing a leader (a server killed). Not stored; the
            // API answers 503 and the caller tries again, as for a timeout.
            throw new GroupStoreUnavailableException("store pipeline group " + group.name(), e);
        }
    }

    @Override
    public void delete(String name) {
        try {
            kv.delete(GroupStore.key(cluster, name));
        } catch (IOException | JetStreamApiException e) {
            throw new GroupStoreUnavailableException("delete pipeline group " + name, e);
        }
    }

    @Override
    public boolean holds(String name) {
        try {
            return kv.get(GroupStore.key(cluster, name)) != null;
        } catch (IOException | JetStreamApiException e) {
            throw new GroupStoreUnavailableException("read pipeline group " + name, e);
        }
    }

    @Override
    public Map<String, Set<String>> otherClusters() {
        Map<String, Set<String>> copy = new TreeMap<>();
        others.forEach((cluster, names) -> copy.put(cluster, new TreeSet<>(names)));
        return copy;
    }
}
