import Reshape
import Testing
