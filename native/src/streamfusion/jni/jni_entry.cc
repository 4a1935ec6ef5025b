// JNI entry points: written next.
