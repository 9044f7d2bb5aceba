import Reshape
print("benchmarks: not written yet")
