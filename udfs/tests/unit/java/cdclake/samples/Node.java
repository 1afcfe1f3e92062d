package cdclake.samples;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/** A tree node that points to its parent: a child written inside its parent is a cycle. */
public class Node implements Serializable {
    public String name;
    public Node parent;
    public List<Node> children = new ArrayList<>();

    public Node(String name) {
        this.name = name;
    }
}
