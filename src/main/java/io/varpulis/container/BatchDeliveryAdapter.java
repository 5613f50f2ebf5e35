package io.varpulis.container;

import io.varpulis.transport.Delivery;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * What a {@link DeliveryContainer} does with the deliveries of one pull together (a batch
 * listener): one {@link Outcome} per delivery, each settled by the rule on its own, as a
 * {@link DeliveryAdapter}'s (SPEC section 19).
 */
public interface BatchDeliveryAdapter {

    /**
     * @return how many deliveries one call gets at most
     */
    int batchSize();

    /**
     * @param deliveries the deliveries received and queued together, in order, 1 to
     * {@link #batchSize()}
     * @return one outcome per delivery, in the same order; an exception thrown here fails
     * them all
     */
    List<CompletionStage<Outcome>> handle(List<Delivery> deliveries);

}
