package cdclake.samples;

import java.io.Serializable;

/** One field of every primitive type, arrays, boxed values, an enum, a string and a null. */
public class Everything implements Serializable {
    public byte b = -5;
    public char c = '\u00e9';
    public double d = 2.5;
    public double notANumber = Double.NaN;
    public float f = 0.1f;
    public float negativeInfinity = Float.NEGATIVE_INFINITY;
    public int i = -7;
    public long j = 1L << 40;
    public short s = 300;
    public boolean z = true;
    public byte[] bytes = {0, 1, -1};
    public int[] ints = {1, 2, 3};
    public String[][] grid = {{"a", null}, {}};
    public Integer boxedInt = 42;
    public Long boxedLong = -9L;
    public Color color = Color.GREEN;
    public String text = "h\u00e9llo";
    public Object nothing;
}
