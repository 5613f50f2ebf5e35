package io.varpulis.autoconfigure;

import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

import java.util.Arrays;

/**
 * Fails startup when a service with the node's classes sets
 * {@code varpulis.cluster.enabled=true} without importing the node's auto-configurations
 * ({@code @ImportNodeAutoConfiguration}): it would otherwise run with no node and say
 * nothing. Without the node's classes (the library jar) there is nothing to import, and
 * {@link ClusterEnvironmentPostProcessor} refuses the node already.
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "varpulis.cluster", name = "enabled", havingValue = "true")
public class NodeImportCheckAutoConfiguration {

    /**
     * @return the check, run once every configuration class is registered
     */
    @Bean
    static BeanFactoryPostProcessor varpulisNodeImportCheck() {
        return new NodeImportCheck();
    }

    /**
     * The node is imported when a configuration class carries the annotation (directly or
     * as a meta-annotation), or one of the node's auto-configurations is registered by
     * other means (a test's {@code AutoConfigurations.of(...)}).
     */
    static final class NodeImportCheck implements BeanFactoryPostProcessor, BeanClassLoaderAware {

        private static final String NODE_PACKAGE = "io.varpulis.autoconfigure.node.";

        private ClassLoader classLoader = ClassUtils.getDefaultClassLoader();

        @Override
        public void setBeanClassLoader(ClassLoader classLoader) {
            this.classLoader = classLoader;
        }

        /**
         * @throws NodeNotImportedException when the node's classes are present and not
         * imported
         */
        @Override
        public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
            if (!ClassUtils.isPresent(NodeNotImportedException.ANNOTATION, classLoader)) {
                return;
            }
            boolean imported = Arrays.stream(beanFactory.getBeanDefinitionNames())
                .map(beanFactory::getBeanDefinition)
                .anyMatch(NodeImportCheck::importsTheNode);
            if (!imported) {
                throw new NodeNotImportedException();
            }
        }

        private static boolean importsTheNode(BeanDefinition definition) {
            String type = definition.getBeanClassName();
            return (type != null && type.startsWith(NODE_PACKAGE))
                    || (definition instanceof AnnotatedBeanDefinition annotated
                            && annotated.getMetadata().getAnnotations().isPresent(NodeNotImportedException.ANNOTATION));
        }

    }

}
