package io.varpulis.cluster.worker;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;

import java.util.function.Consumer;

/**
 * Ends the node when a coordinator refused its worker for a reason retrying cannot fix
 * (another substrate, a wrong api-key, issue 15): the application context is closed (the
 * worker releases its id) and the JVM exits with {@value #STATUS}, so that a supervisor
 * shows the failure instead of a node that retries forever.
 */
public class RefusalExit implements Consumer<String>, ApplicationContextAware {

    /** The exit status: EX_CONFIG of sysexits.h, a configuration error. */
    public static final int STATUS = 78;

    private ApplicationContext context;

    @Override
    public void setApplicationContext(ApplicationContext context) {
        this.context = context;
    }

    /**
     * @param reason why the worker was refused (already logged)
     */
    @Override
    public void accept(String reason) {
        // Off the caller's thread: closing the context stops the worker that calls this.
        Thread exit = new Thread(() -> System.exit(SpringApplication.exit(context, () -> STATUS)),
                "varpulis-refusal-exit");
        // Not a daemon: once the context is closed, nothing else keeps the JVM up until
        // System.exit runs.
        exit.setDaemon(false);
        exit.start();
    }

}
