package io.varpulis.deploy;

import org.w3c.dom.Document;

import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathFactory;

/** The coordinates in pom.xml, which the image and the chart must agree with. */
record ProjectModel(String artifactId, String version) {

    static ProjectModel read() {
        try {
            Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of("pom.xml").toFile());
            var xpath = XPathFactory.newInstance().newXPath();
            return new ProjectModel(xpath.evaluate("/project/artifactId", pom),
                    xpath.evaluate("/project/version", pom));
        }
        catch (Exception e) {
            throw new IllegalStateException("cannot read pom.xml", e);
        }
    }

    /**
     * The version a release of this build carries: {@code 0.1.0-SNAPSHOT} is released as
     * {@code 0.1.0}.
     */
    String releaseVersion() {
        return version.replaceFirst("-SNAPSHOT$", "");
    }
}
