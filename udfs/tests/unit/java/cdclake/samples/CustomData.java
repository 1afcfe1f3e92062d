package cdclake.samples;

import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;

/** A class whose writeObject adds primitive data and an object after its fields. */
public class CustomData implements Serializable {
    public int version = 7;

    private void writeObject(ObjectOutputStream out) throws IOException {
        out.defaultWriteObject();
        out.writeInt(42);
        out.writeUTF("extra");
        out.writeObject("tail");
    }
}
