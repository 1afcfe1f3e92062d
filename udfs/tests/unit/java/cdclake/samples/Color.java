package cdclake.samples;

/** An enum written as TC_ENUM. */
public enum Color {
    RED,
    GREEN
}
