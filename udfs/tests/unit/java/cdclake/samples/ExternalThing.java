package cdclake.samples;

import java.io.Externalizable;
import java.io.IOException;
import java.io.ObjectInput;
import java.io.ObjectOutput;

/** An Externalizable class: its data is block data and objects, with no field descriptions. */
public class ExternalThing implements Externalizable {
    public ExternalThing() {}

    @Override
    public void writeExternal(ObjectOutput out) throws IOException {
        out.writeInt(5);
        out.writeObject("x");
    }

    @Override
    public void readExternal(ObjectInput in) throws IOException, ClassNotFoundException {
        in.readInt();
        in.readObject();
    }
}
